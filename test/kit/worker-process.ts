import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { eventually, WAIT } from '#libs/testing';
import type { Stack } from './api-kit.js';
import { freePort, refuseSharedQueue } from './running-apps.js';

export interface WorkerProcess {
  pid: number;
  output: () => string;
  /** Whether the process has ended, however. */
  ended: () => boolean;
  /** SIGKILL: no shutdown hook runs, its locks and connections die with it. */
  kill: () => Promise<void>;
  stop: () => Promise<void>;
  /** Sends `signal` and resolves with how the process ended and how long it took (SIGKILL after 30 s). */
  signalled: (signal: NodeJS.Signals) => Promise<ProcessEnd>;
}

export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  ms: number;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );

/** The environment of a process that joins `stack`: its database, its queues and its sandbox, plus `more`. */
export const stackProcessEnv = (stack: Stack, more: Record<string, string> = {}): Record<string, string> => ({
  DATABASE_URL: stack.databaseUrl,
  QUEUE_PREFIX: stack.api.config.redis.queuePrefix,
  UPSTREAM_BASE_URL: stack.sandbox.url,
  ...more,
});

/**
 * Where a spawned app's dist/ is: this checkout's by default (npm test builds it), or another build's,
 * such as the previous release's (test/kit/releases.ts).
 */
export interface SpawnOptions {
  root?: string;
}

const THIS_CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));

/** A worker as its own process, built from dist/ (npm test builds it), on the environment's database. */
export function spawnWorker(overrides: Record<string, string>, options: SpawnOptions = {}): WorkerProcess {
  refuseSharedQueue(overrides.QUEUE_PREFIX ?? process.env.QUEUE_PREFIX ?? '');
  return spawnApp('worker', overrides, options);
}

/** Workers a `describe` block keeps running as their own processes (`useWorkers`). */
export interface WorkerGroup {
  /** SIGKILLs the oldest worker (it dies with its jobs in hand) and spawns a fresh one in its place. */
  replaceOldest(): Promise<void>;
}

/**
 * `count` workers as their own processes on `stack` (stackProcessEnv plus `more`), spawned in a
 * `beforeAll` hook registered here and stopped in its `afterAll`: call it after `useStack`, so they start
 * once the stack is running and stop before it closes. Replacements (`replaceOldest`) take the same
 * environment, and are stopped with the rest.
 */
export function useWorkers(stack: Stack, count: number, more: Record<string, string> = {}): WorkerGroup {
  const processes: WorkerProcess[] = [];
  const spawnOne = () => spawnWorker(stackProcessEnv(stack, more));
  beforeAll(() => {
    for (let i = 0; i < count; i++) processes.push(spawnOne());
  });
  afterAll(async () => {
    for (const worker of processes.splice(0)) await worker.stop();
  });
  return {
    async replaceOldest() {
      await processes.shift()!.kill();
      processes.push(spawnOne());
    },
  };
}

/** Spawns on a port found free that something else took before the child bound it, at most. */
const PORT_ATTEMPTS = 3;

/**
 * An api as its own process (passport keeps its strategies per process: two apis in one process would
 * share one's), on a free port, once it answers /health/live.
 */
export function spawnApi(
  overrides: Record<string, string>,
  options: SpawnOptions = {},
): Promise<WorkerProcess & { url: string }> {
  return spawnListening(
    'api',
    (port) => ({ API_HOST: '127.0.0.1', API_PORT: String(port), ...overrides }),
    '/health/live',
    undefined,
    options,
  );
}

/** The sandbox as its own process on `port` (a free one when unset), once it answers /health. */
export function spawnSandbox(
  overrides: Record<string, string> = {},
  port?: number,
): Promise<WorkerProcess & { url: string }> {
  return spawnListening(
    'sandbox',
    (listenOn) => ({ SANDBOX_HOST: '127.0.0.1', SANDBOX_PORT: String(listenOn), ...overrides }),
    '/health',
    port,
  );
}

/**
 * Spawns `app` and waits until `path` answers 200. A port found free can be taken (by an outgoing
 * connection's ephemeral port, say) before the child binds it: a child that ends with EADDRINUSE is
 * spawned again on another port.
 */
async function spawnListening(
  app: 'api' | 'sandbox',
  env: (port: number) => Record<string, string>,
  path: string,
  fixedPort?: number,
  options: SpawnOptions = {},
): Promise<WorkerProcess & { url: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = fixedPort ?? (await freePort());
    const child = spawnApp(app, env(port), options);
    const url = `http://127.0.0.1:${port}`;
    // A child that ended is an answer too: waiting on would only wait out the deadline.
    const outcome = await eventually(
      `${app} process answering ${path}`,
      async () => {
        const answer = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(2_000) }).catch(
          () => undefined,
        );
        if (answer?.status === 200) return 'up' as const;
        return child.ended() ? ('ended' as const) : undefined;
      },
      WAIT.work,
    ).catch(async (error: Error) => {
      await child.kill();
      throw new Error(`${error.message}:\n${child.output()}`);
    });
    if (outcome === 'up') return { ...child, url };
    const taken = /EADDRINUSE/.test(child.output());
    if (taken && fixedPort === undefined && attempt < PORT_ATTEMPTS) continue;
    throw new Error(`${app} process ended before answering ${path}:\n${child.output()}`);
  }
}

function spawnApp(
  app: 'api' | 'worker' | 'sandbox',
  overrides: Record<string, string>,
  { root = THIS_CHECKOUT }: SpawnOptions = {},
): WorkerProcess {
  const main = join(root, 'dist', 'apps', app, 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: npm test builds it (or run npm run build)`);
  return spawnScript(main, overrides);
}

/** A Node script of the checkout as its own process (a test fixture, or an app's main). */
export function spawnScript(main: string, overrides: Record<string, string> = {}): WorkerProcess {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...overrides },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    pid: child.pid!,
    output: () => output,
    ended: () => child.exitCode !== null || child.signalCode !== null,
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited(child);
      clearTimeout(timer);
    },
    async signalled(signal) {
      const started = Date.now();
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited(child);
      clearTimeout(timer);
      return { code: child.exitCode, signal: child.signalCode, ms: Date.now() - started };
    },
  };
}
