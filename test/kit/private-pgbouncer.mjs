// A PgBouncer of a test's own, in transaction mode, on a free port, in front of a given Postgres (the shared
// one or a private one): what docs/operations.md#behind-pgbouncer deploys. Plain Node ESM, as
// private-services.mjs, so a bench or the soak can use it too (types: private-pgbouncer.d.mts).
//
// Debian's pgbouncer (1.18) as a child of this process, as the `postgres` user when this process is root
// (PgBouncer refuses root), with its config, log and pid file in a temporary directory. Clients log in
// without a password (auth_type trust) as any user the auth file names; the admin console (database
// `pgbouncer`) answers SHOW commands. Killed and removed when this process exits, whatever the test did.
import { spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { endChild, freePort, postgresIds, reachable, waitUntil } from './private-services.mjs';

const PGBOUNCER = '/usr/sbin/pgbouncer';

/** The uid and gid to run as: the postgres user's when we are root, else our own (undefined). */
const runAs = () => (process.getuid?.() === 0 ? postgresIds() : {});

/**
 * The pgbouncer.ini: every database of `postgres` (host:port) under its own name, transaction pooling, at
 * most `poolSize` server connections per database and user, no Unix socket, nothing else a default.
 */
const configText = ({ dir, port, postgres, poolSize, connectQuery }) =>
  [
    '[databases]',
    `* = host=${postgres.host} port=${postgres.port}` +
      (connectQuery ? ` connect_query='${connectQuery.replaceAll("'", "''")}'` : ''),
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    'admin_users = postgres',
    'pool_mode = transaction',
    `default_pool_size = ${poolSize}`,
    'max_client_conn = 1000',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    '',
  ].join('\n');

/**
 * A private PgBouncer in transaction mode on a free port, in front of `postgresUrl`'s server (any of its
 * databases, by name). `poolSize` bounds its server connections per database and user (default 5: few,
 * so that transactions do change connections); `connectQuery` runs on each new server connection.
 * `url(database)` is the URL through it; `stop()`/`start()` keep the port; `show('POOLS')` asks its console.
 */
export async function startPrivatePgbouncer({ postgresUrl, poolSize = 5, connectQuery } = {}) {
  const target = new URL(postgresUrl);
  const postgres = { host: target.hostname, port: Number(target.port || 5432) };
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'bff-pgbouncer-'));
  const ids = runAs();
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(join(dir, 'pgbouncer.ini'), configText({ dir, port, postgres, poolSize, connectQuery }));
  if (ids.uid !== undefined) {
    for (const file of ['', 'users.txt', 'pgbouncer.ini']) chownSync(join(dir, file), ids.uid, ids.gid);
  }
  const logFile = join(dir, 'pgbouncer.log');
  let child = null;
  const launch = async () => {
    // In the foreground (no -d): its pid is the child's, and its end is seen.
    const started = spawn(PGBOUNCER, [join(dir, 'pgbouncer.ini')], { stdio: 'ignore', ...ids });
    started.unref();
    let gone = false;
    started.exited = new Promise((resolve) => started.once('exit', resolve)).then(() => (gone = true));
    child = started;
    await waitUntil(async () => gone || (await reachable(port)), `pgbouncer on ${port} did not come up`);
    if (gone) {
      child = null;
      throw new Error(`pgbouncer exited at start:\n${log().slice(-2_000)}`);
    }
  };
  const down = async (signal) => {
    if (!child) return;
    const running = child;
    child = null;
    await endChild(running, signal);
  };
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  const exitHook = () => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', exitHook);
  try {
    await launch();
  } catch (error) {
    process.removeListener('exit', exitHook);
    exitHook();
    throw error;
  }
  const url = (database = target.pathname.slice(1)) =>
    `postgresql://${target.username || 'postgres'}@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    logFile,
    log,
    isRunning: () => child !== null,
    start: () => (child ? Promise.resolve() : launch()),
    /** SIGTERM: PgBouncer's immediate shutdown, every client and server connection closed. */
    stop: () => down('SIGTERM'),
    async restart() {
      await down('SIGTERM');
      await launch();
    },
    /** The rows of `SHOW <what>` on its admin console (POOLS, SERVERS, CLIENTS, STATS…). */
    async show(what) {
      const client = new pg.Client({ connectionString: url('pgbouncer') });
      await client.connect();
      try {
        return (await client.query(`SHOW ${what}`)).rows;
      } finally {
        await client.end();
      }
    },
    /** Gone for good (also at process exit). */
    async destroy() {
      await down('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      process.removeListener('exit', exitHook);
    },
  };
}
