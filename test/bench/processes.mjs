// The bench's own copies of the apps: child processes built from dist/, on ports taken from the
// environment (BENCH_API_PORT, BENCH_SANDBOX_PORT) so a bench can run beside a running `npm start`.
// Its one-off HTTP helpers (call, expectStatus, inParallel) are in http-helpers.mjs.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { APP_ENV, APP_NODE_FLAGS } from '../../scripts/app-runtime.mjs';
import { BenchFailure } from './bench-failure.mjs';
import { call, expectStatus } from './http-helpers.mjs';

const ROOT = new URL('../../', import.meta.url);
const LOG_LINES_KEPT = 40;

export const benchPorts = () => ({
  api: Number(process.env.BENCH_API_PORT ?? 3100),
  apiLive: Number(process.env.BENCH_API_LIVE_PORT ?? 3103),
  sandbox: Number(process.env.BENCH_SANDBOX_PORT ?? 4110),
});

/**
 * An app as its own process, built from dist/: its pid, its last log lines (for failures), its memory, and
 * a stop. Headless apps (the worker) are used as they are; HTTP apps wait for readiness (startApp).
 */
/**
 * One collection as `--trace-gc` prints it: the heap before and after, MB. What the collections of a
 * window freed is what the process allocated in it, less what it kept: unlike CPU time, the same work
 * frees the same bytes on a busy machine as on a quiet one.
 */
const GC_LINE =
  / ms: (?:Scavenge|Mark-Compact|Minor Mark-Sweep)(?: \(reduce\))? ([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/;

export function startHeadless(name, script, env, { traceGc = false } = {}) {
  const file = new URL(script, ROOT);
  if (!existsSync(file)) throw new BenchFailure(`${script} is missing: run \`npm run build\` first`);
  // BENCH_PROFILE_DIR=dir: each app writes its CPU profiles into dir/<name>/ when it stops (open in Chrome
  // DevTools), one per thread, named by Node (pid, thread id): a fixed name would let a thread's profile
  // (tracing's module-loader hooks run in one) overwrite the main thread's.
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}/${name}`]
    : [];
  // BENCH_NODE_FLAGS_API="--trace-gc" (and _API_LIVE, _WORKER, _SANDBOX): more node flags for one app, to experiment.
  const extra = (process.env[`BENCH_NODE_FLAGS_${name.toUpperCase().replaceAll('-', '_')}`] ?? '')
    .split(' ')
    .filter(Boolean);
  // The environment of `npm start` and the Dockerfile (scripts/app-runtime.mjs).
  const childEnv = {
    ...APP_ENV,
    ...process.env,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'development',
    // The bench scrapes no worker, and several workers (or a developer's `npm start`) would contend for
    // the one port: each would warn that it cannot listen.
    WORKER_METRICS_PORT: '0',
    ...env,
  };
  // A setting given as undefined is left to the app's own default (the api reads at the default level).
  for (const [key, value] of Object.entries(childEnv)) if (value === undefined) delete childEnv[key];
  const gcFlags = traceGc ? ['--trace-gc'] : [];
  const app = /dist\/apps\/([a-z]+)\//.exec(script)?.[1];
  const appFlags = APP_NODE_FLAGS[app] ?? [];
  const child = spawn(process.execPath, [...appFlags, ...profile, ...gcFlags, ...extra, file.pathname], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = [];
  let collectedMiB = 0;
  // Per stream: a chunk may end inside a line.
  const keeper = () => {
    let partial = '';
    return (chunk) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop();
      for (const line of parts) {
        const gc = GC_LINE.exec(line);
        if (gc) collectedMiB += Number(gc[1]) - Number(gc[2]);
        else if (line) lines.push(line);
      }
      lines.splice(0, Math.max(0, lines.length - LOG_LINES_KEPT));
    };
  };
  child.stdout.on('data', keeper());
  child.stderr.on('data', keeper());
  let exited = null;
  const gone = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve((exited = signal ?? code))),
  );
  return {
    name,
    pid: child.pid,
    logs: () => lines.join('\n'),
    exited: () => exited,
    memory: () => memoryOf(child.pid),
    /** MiB its collections freed so far: only when started with `traceGc`. */
    collectedMiB: traceGc ? () => collectedMiB : undefined,
    async stop() {
      if (exited !== null) return;
      child.kill('SIGTERM');
      // An orchestrator's grace (Kubernetes' default): a process past its own 9 s budget exits 1 by itself.
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await gone;
      clearTimeout(timer);
    },
    kill: () => child.kill('SIGKILL'),
  };
}

/** An HTTP app started as its own process, once `readyPath` answers 200 on `port`. */
export async function startApp(name, script, env, readyPath, port, options = {}) {
  const app = startHeadless(name, script, env, options);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (app.exited() !== null) {
      throw new BenchFailure(`${name} exited (${app.exited()}) while starting:\n${app.logs()}`);
    }
    const res = await call(url, 'GET', readyPath).catch(() => null);
    if (res?.status === 200) break;
    if (Date.now() > deadline) {
      app.kill();
      throw new BenchFailure(`${name} not ready on ${url}${readyPath} within 60 s:\n${app.logs()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { ...app, url };
}

/**
 * The sandbox and the api as processes on the bench ports, the api on `env` (its database, queue prefix)
 * and unthrottled: the bench measures the rate limiter's cost, not its refusals. Each is pushed onto
 * `closers` as soon as it runs, so a failure stops what started.
 */
export async function startSandboxAndApi(env, closers, apiOptions = {}) {
  const ports = benchPorts();
  const sandbox = await startApp(
    'sandbox',
    'dist/apps/sandbox/src/main.js',
    { SANDBOX_PORT: String(ports.sandbox), SANDBOX_HOST: '127.0.0.1', SANDBOX_DATA_DIR: '' },
    '/health',
    ports.sandbox,
  );
  closers.push(() => sandbox.stop());
  const api = await startApi('api', env, sandbox, ports.api, closers, apiOptions);
  return { sandbox, api };
}

/** One more api process (on `port`, named `name` in profiles and failures) beside the sandbox. */
export async function startApi(name, env, sandbox, port, closers, options = {}) {
  const api = await startApp(
    name,
    'dist/apps/api/src/main.js',
    {
      ...env,
      API_PORT: String(port),
      API_HOST: '127.0.0.1',
      API_PUBLIC_URL: `http://127.0.0.1:${port}`,
      UPSTREAM_BASE_URL: sandbox.url,
      RATE_LIMIT_PER_MINUTE: '1000000',
    },
    '/health/ready',
    port,
    options,
  );
  closers.push(() => api.stop());
  return api;
}

/** Resident and peak resident memory of a process, in MiB (Linux /proc). */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakRssMiB: kib('VmHWM') / 1024 };
}

/**
 * Bare Fastify serving fixed bytes by path: the baseline every scenario's ratios are taken against. A POST
 * is read and parsed as JSON (Fastify's own parser), then answered with the path's bytes.
 */
export async function startBare(bodies) {
  const { default: Fastify } = await import('fastify');
  const bare = Fastify({ logger: false });
  const answer = (request, reply) => {
    const body = bodies.get(request.url);
    if (!body) return reply.code(404).send();
    return reply.type('application/json; charset=utf-8').send(body);
  };
  bare.get('/*', answer);
  bare.post('/*', answer);
  await bare.listen({ host: '127.0.0.1', port: 0 });
  return { url: `http://127.0.0.1:${bare.server.address().port}`, close: () => bare.close() };
}

/**
 * The worker as its own process, closed by `closers`, once it consumes `queue`: a job the scenario adds
 * from now on is taken at once, so the worker's start-up is not in what the scenario times.
 */
export async function startConsumingWorker(env, queue, closers, ms) {
  const worker = startHeadless('worker', 'dist/apps/worker/src/main.js', env);
  closers.push(() => worker.stop());
  await until(
    'the worker consuming',
    async () => ((await queue.getWorkersCount()) > 0 ? true : undefined),
    ms,
  );
  return worker;
}

const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? 'dev-admin-token-change-me';

/** A merchant on-boarded through the operator API of the api at `apiUrl`: its id and its key's header. */
export async function onboardMerchant(apiUrl, name) {
  const created = await expectStatus(
    'POST /admin/merchants',
    call(apiUrl, 'POST', '/admin/merchants', { authorization: `Bearer ${ADMIN_TOKEN}` }, { name }),
    201,
  );
  return {
    merchantId: created.body.data.merchant.id,
    auth: { authorization: `Bearer ${created.body.data.apiKey.key}` },
  };
}

/** Polls `probe` until it answers something other than undefined; fails the run after `ms`. */
export async function until(what, probe, ms, everyMs = 100) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new BenchFailure(`${what}: not within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * An app's environment with some of its fixed tuning changed (libs/config/src/tuning.ts): the apps read
 * TEST_TUNING only with NODE_ENV=test, which changes nothing else of theirs (only production does), so a
 * bench's apps still run as under `npm start`.
 */
export const tuned = (values) => ({ NODE_ENV: 'test', TEST_TUNING: JSON.stringify(values) });

/**
 * Every schedule of the worker off, for a bench that starts its work itself: a dispatch would queue syncs
 * of generated accounts the sandbox cannot serve, beside the ones measured, and the expiry scan,
 * reconciliation and sweeps would do the same to generated consents and events. The job catalogue's own
 * list, from the build the bench runs.
 */
export const SCHEDULES_OFF = tuned(
  (await import(new URL('../../dist/libs/queue/src/job-schedules.js', import.meta.url).href)).SCHEDULES_OFF,
);

/** The sandbox as its own process on the bench's port, its state in memory. */
export function startBenchSandbox() {
  const port = benchPorts().sandbox;
  return startApp(
    'sandbox',
    'dist/apps/sandbox/src/main.js',
    { SANDBOX_PORT: String(port), SANDBOX_HOST: '127.0.0.1', SANDBOX_DATA_DIR: '' },
    '/health',
    port,
  );
}

/** Waits for a BullMQ job to complete (throws with its reason if it failed): the finished job. */
export function jobFinished(queue, job, what, ms) {
  return until(
    what,
    async () => {
      const state = await job.getState();
      if (state === 'failed')
        throw new BenchFailure(`${what} failed: ${(await queue.getJob(job.id)).failedReason}`);
      return state === 'completed' ? queue.getJob(job.id) : undefined;
    },
    ms,
    50,
  );
}
