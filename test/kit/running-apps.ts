import { type AddressInfo, createServer } from 'node:net';
import type { AppConfig } from '#libs/config';
import type { NestFastifyApplication } from '#libs/http';
import type { AppLogger } from '#libs/observability';
import { testConfig } from '#libs/testing';
import { createApiApp } from '../../apps/api/src/bootstrap.js';
import { createSandboxApp } from '../../apps/sandbox/src/bootstrap.js';
import { createWorkerApp, type WorkerApp } from '../../apps/worker/src/bootstrap.js';
import { checkResponseSchemas } from './response-check.js';

export interface RunningHttpApp {
  app: NestFastifyApplication;
  url: string;
  close: () => Promise<void>;
}

/**
 * Ports for what must know its port before it listens (a public URL handed to the apps first). Below
 * Linux's ephemeral range (32768 and up): a port the kernel chose would be free when asked, then taken by
 * an outgoing connection (Postgres, Redis, HTTP) before the server listened on it, which failed a run
 * with EADDRINUSE. Each test worker takes its own slice, so two never pick the same port.
 */
const PORTS_FROM = 20_000;
const PORTS_PER_WORKER = 500;
const WORKER_SLICES = 24;
const sliceStart =
  PORTS_FROM + ((Number(process.env.VITEST_POOL_ID ?? 1) - 1) % WORKER_SLICES) * PORTS_PER_WORKER;
let nextPort = sliceStart + Math.floor(Math.random() * PORTS_PER_WORKER);

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A port nothing listens on right now, in this worker's slice (see PORTS_FROM). */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < PORTS_PER_WORKER; tried += 1) {
    const port = nextPort;
    nextPort = port + 1 < sliceStart + PORTS_PER_WORKER ? port + 1 : sliceStart;
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${sliceStart}-${sliceStart + PORTS_PER_WORKER - 1}`);
}

async function listen(app: NestFastifyApplication, port = 0): Promise<RunningHttpApp> {
  await app.listen({ host: '127.0.0.1', port });
  const { port: bound } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${bound}`, close: () => app.close() };
}

/** The sandbox over real HTTP, on `port` (a random one when 0). */
export async function startSandbox(
  config: AppConfig = testConfig(),
  logger?: AppLogger,
  port = 0,
): Promise<RunningHttpApp> {
  return listen((await createSandboxApp(config, logger)).app, port);
}

export interface ApiStartOptions {
  /**
   * Off: bodies written by JSON.stringify, for comparison with the schema-written ones. On (the default),
   * every schema-written body is checked against JSON.stringify's (`checkResponseSchemas`).
   */
  responseSchemas?: boolean;
  /** Where to listen (a random port when 0 or unset). */
  port?: number;
}

/** The api on a random port, pointed at `upstreamUrl` (normally a sandbox the test started). */
export async function startApi(
  upstreamUrl: string,
  overrides: Record<string, string> = {},
  logger?: AppLogger,
  { port, ...options }: ApiStartOptions = {},
): Promise<RunningHttpApp & { config: AppConfig }> {
  const config = testConfig({ UPSTREAM_BASE_URL: upstreamUrl, ...overrides });
  const { app } = await createApiApp(config, logger, options);
  if (options.responseSchemas !== false) checkResponseSchemas(app.getHttpAdapter().getInstance());
  const running = await listen(app, port);
  return { ...running, config };
}

/**
 * Refuses a worker on the queue prefix every test file shares (vitest.config.ts sets it). Files run in
 * parallel, and a worker takes every job on its prefix: one on the shared prefix ran other files' first
 * syncs against its own sandbox, and a file that read its accounts unsynced read them syncing.
 */
export function refuseSharedQueue(queuePrefix: string): void {
  if (queuePrefix === process.env.QUEUE_PREFIX)
    throw new Error(
      `a worker on the shared test queue prefix (${queuePrefix}) would take other files' jobs: ` +
        'give its stack a database (ownDatabase) or a queue prefix (uniqueQueuePrefix) of its own',
    );
}

export async function startWorker(
  overrides: Record<string, string> = {},
  logger?: AppLogger,
): Promise<WorkerApp & { config: AppConfig }> {
  const config = testConfig(overrides);
  refuseSharedQueue(config.redis.queuePrefix);
  const worker = await createWorkerApp(config, logger);
  await worker.app.init();
  return { ...worker, config };
}
