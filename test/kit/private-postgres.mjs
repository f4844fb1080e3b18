// A Postgres of a test's own (private-services.mjs says why): a cluster made by `initdb` from the machine's
// newest Postgres into a temporary directory, run by `pg_ctl` (as the `postgres` user when this process is
// root: Postgres refuses root). Its data survives restarts, as a real database's does.
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit, freePort, reachable, waitUntil } from './private-process.mjs';

export function postgresBin() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+(\.\d+)?$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(a) - Number(b))
    : [];
  if (versions.length === 0) throw new Error(`no Postgres server binaries under ${root} (initdb, pg_ctl)`);
  return join(root, versions[versions.length - 1], 'bin');
}

const postgresCommand = (bin, args) =>
  process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];

/** Runs a Postgres binary, as the postgres user when we are root (initdb and postgres refuse root). */
export function asPostgres(bin, args) {
  const result = spawnSync(...postgresCommand(bin, args), { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`${bin} ${args.join(' ')} failed (${result.status}):\n${result.stdout}${result.stderr}`);
  }
}

/**
 * A Postgres server of the data directory `data` on `port`, run by pg_ctl, with the kit's settings and the
 * caller's after them (Postgres takes the last of a setting given twice). Stopped and its directory
 * removed at process exit.
 */
export function cluster({ bin, dir, data, port, settings }) {
  let running = false;
  const extra = Object.entries(settings)
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join('');
  const ctl = (...args) => asPostgres(join(bin, 'pg_ctl'), ['-D', data, ...args]);
  const start = async () => {
    if (running) return;
    ctl(
      '-l',
      join(dir, 'postgres.log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200${extra}`,
      'start',
    );
    running = true;
    await waitUntil(() => reachable(port), `private Postgres on ${port} did not come up`);
  };
  const stop = async (mode = 'fast') => {
    if (!running) return;
    ctl('-w', '-m', mode, 'stop');
    running = false;
  };
  const forget = atExit(() => {
    if (running) spawnSync(...postgresCommand(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']));
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    port,
    url: `postgresql://postgres@127.0.0.1:${port}/bff`,
    logFile: join(dir, 'postgres.log'),
    isRunning: () => running,
    /** The server's own process (postmaster.pid's first line): every backend is its child. */
    postmasterPid: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    start,
    stop,
    async restart(mode = 'fast') {
      await stop(mode);
      await start();
    },
    async destroy() {
      await stop('immediate');
      rmSync(dir, { recursive: true, force: true });
      forget();
    },
  };
}

/** A temporary directory the postgres user owns (Postgres refuses to run as root). */
export function postgresDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
  }
  return dir;
}

/**
 * A private Postgres cluster on a free port, trust authentication, user `postgres`, one database `bff`.
 * `stop('fast')` is what an operator's restart sends (57P01 to every connection), `stop('immediate')`
 * a crash; `start()` brings it back with its data. It streams to replicas (private-replica.mjs): initdb's
 * pg_hba trusts replication connections from loopback, and wal_level is `replica` by default.
 */
export async function startPrivatePostgres({ settings = {} } = {}) {
  const bin = postgresBin();
  const port = await freePort();
  const dir = postgresDir('bff-private-pg-');
  const data = join(dir, 'data');
  asPostgres(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const server = cluster({ bin, dir, data, port, settings });
  await server.start();
  asPostgres(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'bff']);
  return server;
}

/** The postgres user's uid and gid (Postgres and PgBouncer refuse to run as root). */
export function postgresIds() {
  const out = spawnSync('id', ['postgres'], { encoding: 'utf8' }).stdout;
  const uid = Number(/uid=(\d+)/.exec(out)?.[1]);
  const gid = Number(/gid=(\d+)/.exec(out)?.[1]);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error('no postgres user on this machine');
  return { uid, gid };
}
