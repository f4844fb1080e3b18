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
//
// Cut by server: this file holds Redis (one server, or a cluster); Postgres is private-postgres.mjs and what
// both use is private-process.mjs, all three exported from here as one kit.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit, endChild, freePort, reachable, waitUntil } from './private-process.mjs';

export { atExit, endChild, freePort, reachable, waitUntil } from './private-process.mjs';
export * from './private-postgres.mjs';

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
    await endChild(running, signal);
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
      await endChild(child, 'SIGKILL');
    },
    /** Resolves once every live node says cluster_state:ok (a killed master's replica promoted). */
    whenOk: (ms = 30_000) => waitUntil(allOk, 'Redis Cluster back to cluster_state:ok', ms),
    async destroy() {
      for (const child of children.values()) {
        await endChild(child, 'SIGKILL');
      }
      children.clear();
      rmSync(dir, { recursive: true, force: true });
      forget();
    },
  };
}
