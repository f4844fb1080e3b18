// What every mode of scripts/dev.mjs shares: saying each step, running a command, failing without
// leaving anything behind, and starting the apps and stopping them (and the services) on the way out.
// Node built-ins only, as dev.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { APP_ENV, APP_NODE_FLAGS } from './app-runtime.mjs';
import { prettyLine } from './dev-log-lines.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const color = process.stdout.isTTY && !process.env.NO_COLOR;
export const paint = (code, text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
export const bin = (name) => join(ROOT, 'node_modules', '.bin', name);

/** Each step's name and start, so `npm test` can end by saying where its time went. */
export const steps = [];
export const step = (text) => {
  steps.push({ text, at: Date.now() });
  console.log(paint('1;36', `▸ ${text}`));
};

/** Thrown instead of exiting, so whatever was started is stopped on the way out. */
export class FatalError extends Error {
  constructor(message, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}
export const fail = (text) => {
  throw new FatalError(text);
};

/** Everything this script started, stopped again on exit (children first, then services). */
export const cleanups = [];
/** The apps this script started: stopped together first, then the services, in reverse start order. */
const children = [];
let stopping = false;

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: process.env, ...options });
  if (result.error) fail(`${command} ${args.join(' ')}: ${result.error.message}`);
  // Ctrl-C reaches the whole process group: the step died of it, so stop, as the user asked.
  if (result.signal === 'SIGINT' || result.signal === 'SIGTERM') throw new FatalError('interrupted', 130);
  return result.status ?? 1;
}

export function mustRun(command, args, options) {
  const status = run(command, args, options);
  if (status !== 0) fail(`${command} ${args.join(' ')} exited with ${status}`);
}

export async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  await Promise.all(children.map((stop) => stop()));
  for (const cleanup of cleanups.reverse()) await cleanup();
  process.exit(code);
}

export function onSignal(signal) {
  if (stopping) {
    // A second Ctrl-C: the user is not waiting for a graceful stop.
    console.error(paint('1;31', `✖ ${signal} again: exiting now`));
    process.exit(130);
  }
  console.log(paint('1;36', `▸ ${signal}: stopping everything this command started`));
  void shutdown(130);
}

/** Stops `child` on the way out: SIGTERM, then SIGKILL after 10 s. */
const stopOnExit = (child) =>
  children.push(
    () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  );

/** One of the apps from dist/, its log lines made readable; its exit stops everything. */
export function startApp(app) {
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', ...APP_NODE_FLAGS[app], join(ROOT, `dist/apps/${app}/src/main.js`)],
    { cwd: ROOT, env: { ...APP_ENV, ...process.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      console.log(prettyLine(app, line, paint));
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(paint('1;31', `✖ ${app} exited (${signal ?? code}); stopping everything`));
      void shutdown(1);
    }
  });
  stopOnExit(child);
  return child;
}

/** How often a wait for an app says what it is still waiting for. */
const WAIT_NOTICE_MS = 15_000;

/**
 * Waits for an app as long as it takes (an app that exits stops everything anyway): a dependency that is
 * slow or down (Redis, Postgres, the upstream) is said every WAIT_NOTICE_MS, never a reason to give up.
 */
export async function waitPatiently(check, what) {
  let noticeAt = Date.now() + WAIT_NOTICE_MS;
  for (;;) {
    const { ok, why } = await check();
    if (ok || stopping) return;
    if (Date.now() >= noticeAt) {
      console.log(paint('33', `… still waiting for ${what}${why ? `: ${why}` : ''}`));
      noticeAt = Date.now() + WAIT_NOTICE_MS;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
