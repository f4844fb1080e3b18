import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface WorkerProcess {
  pid: number;
  output: () => string;
  /** SIGKILL: no shutdown hook runs, its locks and connections die with it. */
  kill: () => Promise<void>;
  stop: () => Promise<void>;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
  );

/** A worker as its own process, built from dist/ (npm test builds it), on the environment's database. */
export function spawnWorker(overrides: Record<string, string>): WorkerProcess {
  const main = fileURLToPath(new URL('../../dist/apps/worker/src/main.js', import.meta.url));
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
  };
}
