import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from './running-apps.js';

export interface WorkerProcess {
  pid: number;
  output: () => string;
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

/** A worker as its own process, built from dist/ (npm test builds it), on the environment's database. */
export function spawnWorker(overrides: Record<string, string>): WorkerProcess {
  return spawnApp('worker', overrides);
}

/** How long a process may take to answer after its spawn: a few seconds when quiet, sized for a loaded machine. */
const START_DEADLINE_MS = 60_000;

/**
 * An api as its own process (passport keeps its strategies per process: two apis in one process would
 * share one's), on a free port, once it answers /health/live.
 */
export async function spawnApi(overrides: Record<string, string>): Promise<WorkerProcess & { url: string }> {
  const port = await freePort();
  const api = spawnApp('api', { API_HOST: '127.0.0.1', API_PORT: String(port), ...overrides });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    const live = await fetch(`${url}/health/live`).catch(() => undefined);
    if (live?.status === 200) return { ...api, url };
    if (Date.now() > deadline) {
      await api.kill();
      throw new Error(`api process not live within ${START_DEADLINE_MS} ms:\n${api.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The sandbox as its own process on `port` (a free one when unset), once it answers /health. */
export async function spawnSandbox(
  overrides: Record<string, string> = {},
  port?: number,
): Promise<WorkerProcess & { url: string }> {
  const listenOn = port ?? (await freePort());
  const sandbox = spawnApp('sandbox', {
    SANDBOX_HOST: '127.0.0.1',
    SANDBOX_PORT: String(listenOn),
    ...overrides,
  });
  const url = `http://127.0.0.1:${listenOn}`;
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    const health = await fetch(`${url}/health`).catch(() => undefined);
    if (health?.status === 200) return { ...sandbox, url };
    if (Date.now() > deadline) {
      await sandbox.kill();
      throw new Error(`sandbox process not healthy within ${START_DEADLINE_MS} ms:\n${sandbox.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function spawnApp(app: 'api' | 'worker' | 'sandbox', overrides: Record<string, string>): WorkerProcess {
  const main = fileURLToPath(new URL(`../../dist/apps/${app}/src/main.js`, import.meta.url));
  if (!existsSync(main)) throw new Error(`${main} is missing: npm test builds it (or run npm run build)`);
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
