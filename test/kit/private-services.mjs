// A Redis and a Postgres of a test's own, on free ports, that it may stop, kill, wipe and restart without
// touching the machine's shared ones (which every other test file uses). Plain Node ESM, so the chaos soak
// (test/soak) and the TypeScript tests (through private-services.d.mts) share it.
//
// - Redis: `redis-server` as a child of this process, without persistence (`--save '' --appendonly no`,
//   as docker-compose.yml and a failed-over managed Redis): a restart comes back empty.
// - Postgres: a cluster of its own made by `initdb` from the machine's newest Postgres into a temporary
//   directory, run by `pg_ctl` (as the `postgres` user when this process is root: Postgres refuses root).
//   Its data survives restarts, as a real database's does.
// Both are stopped and removed when this process exits, whatever the test did.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

// ------------------------------------------------------------------------------------------------ Redis

/** A redis-server on `port` in the foreground, loopback only, keeping nothing on disk. */
export const redisArgs = (port) => [
  '--port',
  String(port),
  '--bind',
  '127.0.0.1',
  '--save',
  '',
  '--appendonly',
  'no',
  '--daemonize',
  'no',
];

/**
 * A private Redis on a free port. `restart()` comes back empty (no persistence), `kill()` is SIGKILL,
 * `stop()`/`start()` leave it down in between (the port is kept).
 */
export async function startPrivateRedis() {
  const port = await freePort();
  let child = null;
  const launch = async () => {
    const started = spawn('redis-server', redisArgs(port), { stdio: 'ignore' });
    // Its lifetime is the caller's business, not a reason for this process to stay: the exit hook kills it.
    started.unref();
    child = started;
    const exited = new Promise((resolve) => started.once('exit', resolve));
    started.exited = exited;
    await waitUntil(() => reachable(port), `private Redis on ${port} did not come up`);
  };
  const down = async (signal) => {
    if (!child) return;
    const running = child;
    child = null;
    running.ref();
    running.kill(signal);
    await running.exited;
    await waitUntil(async () => !(await reachable(port)), `private Redis on ${port} did not go down`);
  };
  await launch();
  const forget = atExit(() => child?.kill('SIGKILL'));
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    isRunning: () => child !== null,
    /** Starts it again after stop() or kill(): empty. */
    start: () => (child ? Promise.resolve() : launch()),
    /** SIGTERM: Redis shuts down (without saving: it has nowhere to). */
    stop: () => down('SIGTERM'),
    /** SIGKILL, as a crashed host. */
    kill: () => down('SIGKILL'),
    /** Down and up again on the same port, without its data. */
    async restart() {
      await down('SIGTERM');
      await launch();
    },
    /** Gone for good (also at process exit). */
    async destroy() {
      await down('SIGKILL');
      forget();
    },
  };
}

/**
 * A free port with its cluster bus port (+10000) free too, both below Linux's ephemeral range (32768…):
 * a port the kernel hands to another test's connection between this check and the node's bind would make
 * the node exit.
 */
async function clusterPort() {
  for (let tries = 0; tries < 200; tries++) {
    const port = 10_000 + Math.floor(Math.random() * 12_700);
    if (!(await reachable(port)) && !(await reachable(port + 10_000))) return port;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

/** Tries to start a cluster node before giving up: another file may take a port between check and bind. */
const CLUSTER_NODE_TRIES = 5;

/**
 * A private Redis Cluster of `masters` masters, each with `replicas` replicas (none by default), no
 * persistence, formed by `redis-cli --cluster create` and ready (every slot served) when this resolves.
 * `nodes` is what REDIS_CLUSTER_NODES takes. With replicas, a node is judged failed after 2 s instead of
 * Redis's 15 s (`cluster-node-timeout`), so that a killed master's replica is promoted within seconds, as a
 * deployment that wants writes back soon sets it too; without, the default stays, as no failover can follow.
 */
export async function startPrivateRedisCluster(masters = 3, { replicas = 0 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bff-redis-cluster-'));
  const ports = [];
  const children = new Map();
  const forget = atExit(() => {
    for (const child of children.values()) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  const timeout = replicas > 0 ? ['--cluster-node-timeout', '2000'] : [];
  for (let i = 0; i < masters * (1 + replicas); i++) {
    for (let attempt = 1; ; attempt++) {
      const port = await clusterPort();
      const child = spawn(
        'redis-server',
        [
          ...redisArgs(port),
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--dir',
          dir,
          ...timeout,
        ],
        { stdio: 'ignore' },
      );
      child.unref();
      let gone = false;
      child.exited = new Promise((resolve) => child.once('exit', resolve)).then(() => (gone = true));
      await waitUntil(
        async () => gone || (await reachable(port)),
        `Redis Cluster node on ${port} did not come up`,
      );
      if (!gone) {
        children.set(port, child);
        ports.push(port);
        break;
      }
      // It could not bind (a port taken meanwhile): another pair of ports.
      if (attempt === CLUSTER_NODE_TRIES)
        throw new Error(`Redis Cluster node exited at start ${attempt} times (ports taken?)`);
    }
  }
  const nodes = ports.map((port) => `127.0.0.1:${port}`);
  const created = spawnSync(
    'redis-cli',
    ['--cluster', 'create', ...nodes, '--cluster-replicas', String(replicas), '--cluster-yes'],
    { encoding: 'utf8' },
  );
  if (created.status !== 0)
    throw new Error(`redis-cli --cluster create failed:\n${created.stdout}${created.stderr}`);
  const cli = (args, port = ports.find((p) => children.has(p))) =>
    spawnSync('redis-cli', ['-c', '-p', String(port), ...args], { encoding: 'utf8' }).stdout;
  /** The nodes as the first live node sees them: port, role, and for a master its slot ranges. */
  const topology = () =>
    cli(['cluster', 'nodes'])
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [, address, flags, , , , , , ...slots] = line.split(' ');
        return {
          port: Number(/:(\d+)@/.exec(address)?.[1]),
          master: flags.split(',').includes('master') && !flags.includes('fail'),
          slots: slots.map((range) => range.split('-').map(Number)),
        };
      });
  const allOk = () =>
    [...children.keys()].every((port) => /cluster_state:ok/.test(cli(['cluster', 'info'], port)));
  /**
   * Every replica holding its master's data: Redis never promotes a replica that has not synced once
   * (its data counts as infinitely old), so a master killed before that is never replaced.
   */
  const replicasSynced = () =>
    [...children.keys()].filter((port) => /master_link_status:up/.test(cli(['info', 'replication'], port)))
      .length ===
    masters * replicas;
  // Formed is not ready: every node must see every slot served (and, with replicas, know its master and
  // hold its data) before a client can be pointed at it.
  await waitUntil(
    () =>
      allOk() &&
      (replicas === 0 ||
        (topology().filter((n) => !n.master).length === masters * replicas && replicasSynced())),
    'Redis Cluster did not reach cluster_state:ok',
  );
  return {
    ports,
    nodes: nodes.join(','),
    /** redis-cli (following redirections) against one node, the first live one by default: its stdout. */
    cli,
    /** The port of the master serving `key`'s hash slot now. */
    masterFor(key) {
      const slot = Number(cli(['cluster', 'keyslot', key]).trim());
      const node = topology().find(
        (n) => n.master && n.slots.some(([from, to = from]) => slot >= from && slot <= to),
      );
      if (!node) throw new Error(`no master serves slot ${slot}`);
      return node.port;
    },
    /** SIGKILL the node on `port`, as a crashed host; resolves once it is gone. */
    async kill(port) {
      const child = children.get(port);
      if (!child) throw new Error(`no running cluster node on ${port}`);
      children.delete(port);
      child.ref();
      child.kill('SIGKILL');
      await child.exited;
    },
    /** Resolves once every live node says cluster_state:ok (a killed master's replica promoted). */
    whenOk: (ms = 30_000) => waitUntil(allOk, 'Redis Cluster back to cluster_state:ok', ms),
    async destroy() {
      for (const child of children.values()) {
        child.ref();
        child.kill('SIGKILL');
        await child.exited;
      }
      children.clear();
      rmSync(dir, { recursive: true, force: true });
      forget();
    },
  };
}

// ------------------------------------------------------------------------------------------------ Postgres

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
