// What the soak runs and breaks: a private Redis and Postgres (test/kit/private-services.mjs), the
// sandbox, two api processes and two workers, all built from dist/ and all on the private services, and
// the chaos actions the schedule calls (SIGKILL a worker, restart Redis empty, restart Postgres, restart
// an api). Each process keeps its last log lines for the failure report and its RSS at start and end.
import { spawnSync } from 'node:child_process';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { memoryOf, startApp, startHeadless, tuned } from '../bench/processes.mjs';
import { startPrivatePatroni } from '../kit/private-patroni.mjs';
import { startPrivateSentinel } from '../kit/private-sentinel.mjs';
import { freePort, startPrivatePostgres, startPrivateRedis } from '../kit/private-services.mjs';

const dist = (path) => fileURLToPath(new URL(`../../dist/${path}`, import.meta.url));
export const ADMIN_TOKEN = 'soak-admin-token';
export const SANDBOX_ADMIN_TOKEN = 'soak-sandbox-admin-token';

const rss = (pid) => {
  try {
    const { rssMiB } = memoryOf(pid);
    return Number.isFinite(rssMiB) ? Math.round(rssMiB) : null;
  } catch {
    return null;
  }
};

/**
 * One named role (api-a, worker-1…) across its incarnations: a restart starts a new process under the
 * same name, on the same port. `down` is true between a stop and the next start.
 */
class Role {
  constructor(name, launch) {
    this.name = name;
    this.launch = launch;
    this.proc = null;
    this.down = true;
    this.restarts = 0;
    this.rssStart = null;
    this.rssEnd = null;
    /** Stops that did not end by themselves (SIGKILL, a signal, a crash): { at, ms, how }. */
    this.slowStops = [];
    /** Stops that reached their own deadline and exited 1: { at, ms, lines }. */
    this.deadlineStops = [];
    this.exitsUnasked = [];
    this.previousLogs = [];
  }

  async start() {
    this.proc = await this.launch();
    this.down = false;
    const proc = this.proc;
    // A process that dies without being asked is a finding (the Postgres-restart crash of issue 26).
    const watch = setInterval(() => {
      if (proc !== this.proc) return clearInterval(watch);
      if (proc.exited() !== null && !this.down) {
        clearInterval(watch);
        this.exitsUnasked.push({ at: new Date().toISOString(), exit: proc.exited(), logs: proc.logs() });
        this.down = true;
      }
    }, 250);
    watch.unref();
  }

  async stop() {
    if (!this.proc) return;
    this.down = true;
    const started = Date.now();
    await this.proc.stop();
    const ms = Date.now() - started;
    // What an orchestrator needs: the process ends by itself, never SIGKILLed. Its own deadline
    // (SHUTDOWN_BUDGET_MS, timed from the signal inside it) exits 1 naming the step it was stuck in
    // (deadlineStops). The wall time seen from here also counts how long a loaded machine took to
    // schedule it, so it is not judged.
    if (this.proc.exited() === 1)
      this.deadlineStops.push({
        at: new Date().toISOString(),
        ms,
        lines: this.proc.logs().split('\n').slice(-2),
      });
    else if (this.proc.exited() !== 0)
      this.slowStops.push({
        at: new Date().toISOString(),
        ms,
        how: String(this.proc.exited()),
        lines: this.proc.logs().split('\n').slice(-6),
      });
    this.keepLogs();
  }

  async kill() {
    if (!this.proc) return;
    this.down = true;
    this.proc.kill();
    const deadline = Date.now() + 5_000;
    while (this.proc.exited() === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    this.keepLogs();
  }

  keepLogs() {
    this.previousLogs = this.proc.logs().split('\n').slice(-15);
  }

  async restart({ kill = false } = {}) {
    await (kill ? this.kill() : this.stop());
    this.restarts += 1;
    await this.start();
  }

  /** RSS once warmed up (set up done, before the load): a process just spawned has not loaded yet. */
  measureStart() {
    if (this.proc && this.proc.exited() === null) this.rssStart ??= rss(this.proc.pid);
  }

  measureEnd() {
    if (this.proc && this.proc.exited() === null) this.rssEnd = rss(this.proc.pid);
  }

  logs() {
    const now = this.proc?.logs() ?? '';
    return [...(this.restarts ? ['(previous incarnation)', ...this.previousLogs, '(current)'] : []), now]
      .join('\n')
      .split('\n')
      .slice(-30)
      .join('\n');
  }
}

/** Everything started, in order; `close()` stops it all (the exit hook of private-services does the rest). */
/** The most runs an account keeps (the setting's maximum): a soak never reaches it. */
export const SYNC_RUNS_KEPT = 10_000;

/**
 * With `failover`, Postgres is a Patroni cluster behind HAProxy (test/kit/private-patroni.mjs) and Redis a
 * master and replica under three sentinels (test/kit/private-sentinel.mjs): the apps reach the primary and
 * replica through HAProxy's two ports and find the Redis master through the sentinels, as
 * docs/failover.md says to.
 */
export async function startCluster({ progress, queuePrefix, failover = false }) {
  progress(
    failover
      ? 'private Redis under Sentinel, and Postgres as Patroni (two nodes) behind HAProxy'
      : 'private Redis and Postgres',
  );
  const redis = failover ? await startPrivateSentinel() : await startPrivateRedis();
  const postgres = failover ? await startPrivatePatroni() : await startPrivatePostgres();
  const redisSettings = failover
    ? { REDIS_SENTINELS: redis.sentinels, REDIS_SENTINEL_NAME: redis.name }
    : { REDIS_URL: redis.url };
  const migrated = spawnSync(process.execPath, [dist('libs/database/src/migrate.cli.js')], {
    env: { ...process.env, DATABASE_URL: postgres.url, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (migrated.status !== 0) throw new Error(`migration failed: ${migrated.stderr || migrated.stdout}`);

  const [sandboxPort, apiPortA, apiPortB] = await Promise.all([freePort(), freePort(), freePort()]);
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`;
  const apiUrls = [`http://127.0.0.1:${apiPortA}`, `http://127.0.0.1:${apiPortB}`];
  const common = {
    DATABASE_URL: postgres.url,
    ...(failover ? { DATABASE_REPLICA_URL: postgres.replicaUrl } : {}),
    ...redisSettings,
    QUEUE_PREFIX: queuePrefix,
    UPSTREAM_BASE_URL: sandboxUrl,
    ADMIN_TOKEN,
    SANDBOX_ADMIN_TOKEN,
    // Short intervals so that what a lost job or wake-up leaves behind is recovered within a short run.
    ...tuned({
      eventsSweepEverySeconds: 2,
      syncDispatchEverySeconds: 5,
      syncRunIdleSeconds: 20,
      paymentStatusPollSeconds: 2,
      eventDeliveryBackoffSeconds: 1,
      scheduleCheckSeconds: 5,
      sseHeartbeatSeconds: 2,
    }),
    // The shortest allowed, so sessions expire within a short run too: the load renews them on 401.
    SESSION_TTL_SECONDS: '60',
    // The limiter stays on (its Redis calls are part of what is tested), never refusing our own load.
    RATE_LIMIT_PER_MINUTE: '100000',
    // Both apis sign and accept the same consent state; the bank sends the browser to api-a's address and
    // the soak's browser re-bases the callback onto whichever api is up.
    API_PUBLIC_URL: apiUrls[0],
    WORKER_CONCURRENCY: '10',
    // Every run kept, so the runs' counts can be summed against what is stored (the check in
    // soak-invariants.mjs); pruning itself is tested in test/retention.e2e-spec.ts.
    SYNC_RUNS_KEPT_PER_ACCOUNT: String(SYNC_RUNS_KEPT),
  };

  progress('sandbox');
  const sandbox = new Role('sandbox', () =>
    startApp(
      'sandbox',
      'dist/apps/sandbox/src/main.js',
      {
        ...common,
        SANDBOX_PORT: String(sandboxPort),
        SANDBOX_HOST: '127.0.0.1',
        SANDBOX_PUBLIC_URL: sandboxUrl,
        SANDBOX_DATA_DIR: '',
      },
      '/health',
      sandboxPort,
    ),
  );
  await sandbox.start();

  const api = (name, port) =>
    new Role(name, () =>
      startApp(
        name,
        'dist/apps/api/src/main.js',
        { ...common, API_PORT: String(port), API_HOST: '127.0.0.1' },
        '/health/ready',
        port,
      ),
    );
  const worker = (name) =>
    new Role(name, async () => startHeadless(name, 'dist/apps/worker/src/main.js', common));
  const apis = [api('api-a', apiPortA), api('api-b', apiPortB)];
  const workers = [worker('worker-1'), worker('worker-2')];
  progress('two apis and two workers');
  for (const role of [...apis, ...workers]) await role.start();

  const roles = [sandbox, ...apis, ...workers];
  return {
    redis,
    redisSettings,
    /** A connection of the soak's own to the Redis the apps use (the master, through Sentinel). */
    redisConnection: () =>
      failover
        ? new Redis({
            sentinels: redis.sentinels.split(',').map((hostPort) => {
              const [host, port] = hostPort.split(':');
              return { host, port: Number(port) };
            }),
            name: redis.name,
            maxRetriesPerRequest: null,
          })
        : new Redis(redis.url, { maxRetriesPerRequest: null }),
    postgres,
    sandbox,
    sandboxUrl,
    apis,
    apiUrls,
    workers,
    roles,
    async close() {
      for (const role of roles) role.measureEnd();
      for (const role of [...apis, ...workers].reverse()) await role.stop().catch(() => undefined);
      await sandbox.stop().catch(() => undefined);
      await redis.destroy().catch(() => undefined);
      await postgres.destroy().catch(() => undefined);
    },
  };
}
