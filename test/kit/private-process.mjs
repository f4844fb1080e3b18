// What the kit's private servers (Redis, Postgres, Sentinel, Patroni, PgBouncer) share: free ports, waiting
// for one to answer, and removing what they leave when this process exits, however it exits.
import { connect, createServer } from 'node:net';

/** A port nothing listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections on 127.0.0.1:`port`. */
export function reachable(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Waits for `check` to hold, polling; fails naming `what` after `ms`. */
export async function waitUntil(check, what, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Sends `signal` to a child the kit started unref'd (so that it never holds this process up), and resolves
 * once it has exited: ref'd again meanwhile, or this process could leave before it is gone.
 */
export async function endChild(child, signal) {
  child.ref();
  child.kill(signal);
  await child.exited;
}

/** What to do when this process exits: kill what is still running, remove directories. */
const onExit = new Set();
let exitHookInstalled = false;
/** Runs `cleanup` when this process exits, however; returns what forgets it (after a clean destroy). */
export function atExit(cleanup) {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const fn of onExit) {
        try {
          fn();
        } catch {
          // Best effort: the process is leaving anyway.
        }
      }
    });
  }
  onExit.add(cleanup);
  return () => onExit.delete(cleanup);
}
