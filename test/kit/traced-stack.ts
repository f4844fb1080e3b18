import { randomBytes } from 'node:crypto';
import { SCHEDULES_OFF, tuned, uniqueQueuePrefix } from '#libs/testing';
import { uniqueName } from './factories.js';
import { OtlpReceiver } from './otlp-receiver.js';
import { scratchDatabase } from './scratch-database.js';
import { spawnApi, spawnSandbox, spawnWorker, type WorkerProcess } from './worker-process.js';

/** Secrets of this stack alone, so a search of what was exported cannot miss one by a default value. */
export function stackSecrets() {
  const word = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`;
  return {
    ADMIN_TOKEN: word('admin'),
    SIGNING_SECRET: word('signing-secret'),
    UPSTREAM_APPLICATION_SECRET: word('app-secret'),
    SANDBOX_ADMIN_TOKEN: word('sandbox-admin'),
  };
}

export interface TracedStack {
  receiver: OtlpReceiver;
  sandbox: WorkerProcess & { url: string };
  api: WorkerProcess & { url: string };
  worker: WorkerProcess;
  databaseUrl: string;
  secrets: ReturnType<typeof stackSecrets>;
  close(): Promise<void>;
}

/**
 * Sandbox, api and worker as processes of their own (each its own tracer provider, as in production),
 * from dist/, on a database and queue prefix of their own, exporting their traces to a local OTLP
 * receiver: the api and the worker as `http/json`, the sandbox as `http/protobuf`.
 */
export async function startTracedStack(label: string): Promise<TracedStack> {
  const receiver = await new OtlpReceiver().start();
  const database = await scratchDatabase(label);
  const secrets = stackSecrets();
  const started: WorkerProcess[] = [];
  const close = async () => {
    for (const app of started.reverse()) await app.stop();
    await receiver.stop();
    await database.drop();
  };
  const common = {
    ...secrets,
    DATABASE_URL: database.url,
    QUEUE_PREFIX: uniqueQueuePrefix(label),
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    // OpenTelemetry's own variable (the tracing bootstrap reads it as the specification says), not ours.
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    // Export every 100 ms (the SDK reads this itself), so the test waits for spans, not for batches.
    OTEL_BSP_SCHEDULE_DELAY: '100',
    // Nothing scheduled: the spans received are those of what the test does.
    ...tuned(SCHEDULES_OFF),
    WORKER_METRICS_PORT: '0',
  };
  try {
    const sandbox = await spawnSandbox({ ...common, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' });
    started.push(sandbox);
    const upstream = { UPSTREAM_BASE_URL: sandbox.url, API_PUBLIC_URL: 'http://localhost:3000' };
    const api = await spawnApi({ ...common, ...upstream, LOG_LEVEL: 'info' });
    started.push(api);
    const worker = spawnWorker({ ...common, ...upstream });
    started.push(worker);
    return { receiver, sandbox, api, worker, databaseUrl: database.url, secrets, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/** The trace id a W3C `traceparent` header names. */
export const traceIdOf = (traceparent: unknown): string | undefined =>
  typeof traceparent === 'string' ? traceparent.split('-')[1] : undefined;

/** A merchant on-boarded through the operator route, with one user and an endpoint for every event. */
export async function onboardTraced(
  stack: TracedStack,
  endpointUrl: string,
): Promise<{ key: string; userId: string; reference: string; endpointSecret: string }> {
  const post = async (path: string, token: string, body: unknown) => {
    const response = await fetch(`${stack.api.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: any }).data;
  };
  const merchant = await post('/admin/merchants', stack.secrets.ADMIN_TOKEN, { name: uniqueName('traced') });
  const key: string = merchant.apiKey.key;
  const reference = uniqueName('customer');
  const user = await post('/v1/users', key, { reference });
  const endpoint = await post('/v1/event-endpoints', key, { url: endpointUrl });
  await post('/admin/upstream/webhooks', stack.secrets.ADMIN_TOKEN, {
    callbackUrl: `${stack.api.url}/v1/webhooks/upstream`,
  });
  return { key, userId: user.id, reference, endpointSecret: endpoint.secret };
}
