// A private Redis Sentinel set-up on free ports: one master, one replica and three `redis-sentinel`
// processes watching them, all children of this process, keeping nothing on disk (as the private Redis),
// and killed at exit. Plain Node ESM, like private-services.mjs whose helpers it shares.
//
// Its timings are a test's, not Redis's defaults (30 s to judge a master down, 3 min for a failover):
// - down-after-milliseconds 2000: a killed master is judged down after 2 s. Shorter would failover a
//   master that is only slow for a moment on a loaded two-core machine, which is not what a test asks for.
// - failover-timeout 4000: if a failover stalls (a split vote among the three sentinels, a promotion that
//   does not show), the next try comes within seconds, not minutes. Redis waits twice it between tries.
// A production deployment sets the first from its own network's hiccups (docs/operations.md).
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit, endChild, freePort, reachable, redisArgs, waitUntil } from './private-services.mjs';

const DOWN_AFTER_MS = 2_000;
const FAILOVER_TIMEOUT_MS = 4_000;
const QUORUM = 2;

/** redis-cli against 127.0.0.1:`port`, without blocking the event loop (apps in this process keep serving). */
function cli(port, args) {
  return new Promise((resolve) => {
    execFile('redis-cli', ['-p', String(port), ...args], { timeout: 2_000 }, (error, stdout) =>
      resolve(error ? '' : stdout),
    );
  });
}

/** A process that stays ours until killed; `exited` resolves when it has ended. */
function child(command, args) {
  const started = spawn(command, args, { stdio: 'ignore' });
  started.unref();
  started.exited = new Promise((resolve) => started.once('exit', resolve));
  return started;
}

/**
 * One master and one replica watched by three sentinels under `name`, ready (each sentinel knows the
 * replica and the two other sentinels, so a failover can be voted) when this resolves. `sentinels` is what
 * REDIS_SENTINELS takes.
 */
export async function startPrivateSentinel({ name = 'bff' } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'bff-redis-sentinel-'));
  /** The data nodes by port; a killed one is absent until restarted. */
  const nodes = new Map();
  const sentinelChildren = [];
  const forget = atExit(() => {
    for (const node of nodes.values()) node.kill('SIGKILL');
    for (const sentinel of sentinelChildren) sentinel.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const startNode = async (port, replicaOf) => {
    const node = child('redis-server', [
      ...redisArgs(port),
      // A replica's full sync lands in a file of its directory, even without persistence: ours, not the cwd.
      '--dir',
      dir,
      ...(replicaOf ? ['--replicaof', '127.0.0.1', String(replicaOf)] : []),
    ]);
    nodes.set(port, node);
    await waitUntil(() => reachable(port), `Redis node on ${port} did not come up`);
  };
  const linkUp = async (port) => /master_link_status:up/.test(await cli(port, ['info', 'replication']));

  const first = await freePort();
  const second = await freePort();
  await startNode(first);
  await startNode(second, first);
  await waitUntil(() => linkUp(second), `replica on ${second} did not sync`);

  const sentinelPorts = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const file = join(dir, `sentinel-${port}.conf`);
    // Sentinel rewrites its file as it learns the topology: each needs its own, writable.
    writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        'daemonize no',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${first} ${QUORUM}`,
        `sentinel down-after-milliseconds ${name} ${DOWN_AFTER_MS}`,
        `sentinel failover-timeout ${name} ${FAILOVER_TIMEOUT_MS}`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    sentinelChildren.push(child('redis-sentinel', [file]));
    sentinelPorts.push(port);
  }
  for (const port of sentinelPorts)
    await waitUntil(() => reachable(port), `sentinel on ${port} did not come up`);

  /** Flat field/value lines (redis-cli's rendering of a map) as an object. */
  const fields = (lines) => {
    const state = {};
    for (let i = 0; i + 1 < lines.length; i += 2) state[lines[i]] = lines[i + 1];
    return state;
  };
  /** What a sentinel says of the master group. */
  const masterState = async (port) =>
    fields((await cli(port, ['sentinel', 'master', name])).split('\n').filter(Boolean));
  /**
   * Whether every sentinel holds the replica on `port` fit to promote: seen (no s_down, not
   * disconnected), in sync, its INFO read. A planned failover otherwise answers NOGOODSLAVE.
   */
  const replicaFit = async (port) =>
    (
      await Promise.all(
        sentinelPorts.map(async (sentinel) => {
          // One replica's fields per block; redis-cli prints a blank-free list, so split on `name`.
          const lines = (await cli(sentinel, ['sentinel', 'replicas', name])).split('\n').filter(Boolean);
          const replicas = [];
          for (const [i, line] of lines.entries()) if (line === 'name') replicas.push(i);
          return replicas
            .map((start, k) => fields(lines.slice(start, replicas[k + 1] ?? lines.length)))
            .some(
              (r) =>
                r.port === String(port) &&
                r.flags === 'slave' &&
                r['master-link-status'] === 'ok' &&
                Number(r['info-refresh']) < 5_000,
            );
        }),
      )
    ).every(Boolean);
  // Sentinels find each other and the replica through the master's hello channel, every 2 s.
  await waitUntil(
    async () =>
      (await Promise.all(sentinelPorts.map(masterState))).every(
        (s) => s['num-other-sentinels'] === '2' && s['num-slaves'] === '1',
      ),
    'the sentinels did not all learn the replica and each other',
  );

  /** The master's port as each sentinel names it (0 where one does not answer). */
  const named = async () =>
    Promise.all(
      sentinelPorts.map(async (port) => {
        const [, masterPort] = (await cli(port, ['sentinel', 'get-master-addr-by-name', name]))
          .split('\n')
          .filter(Boolean);
        return Number(masterPort ?? 0);
      }),
    );
  const isMaster = async (port) => /^role:master/m.test(await cli(port, ['info', 'replication']));

  /** The current master's port: what the sentinels agree on and the node itself confirms. */
  const master = async () => {
    let found = 0;
    await waitUntil(async () => {
      const ports = await named();
      found = ports[0];
      return found > 0 && ports.every((p) => p === found) && (await isMaster(found));
    }, 'the sentinels did not agree on a master');
    return found;
  };

  /** Resolves with the new master once every sentinel names a master other than `old` and it is one. */
  const promotedFrom = async (old, ms) => {
    let found = 0;
    await waitUntil(
      async () => {
        const ports = await named();
        found = ports[0];
        return found !== old && ports.every((p) => p === found) && (await isMaster(found));
      },
      `no master other than ${old} promoted`,
      ms,
    );
    return found;
  };

  return {
    name,
    /** host:port,… as REDIS_SENTINELS takes it. */
    sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
    sentinelPorts,
    master,
    /** SIGKILL the current master, as a crashed host; resolves with its port once it is gone. */
    async killMaster() {
      const port = await master();
      const node = nodes.get(port);
      nodes.delete(port);
      await endChild(node, 'SIGKILL');
      return port;
    },
    /** A planned failover (`SENTINEL FAILOVER`): resolves with the old master's port once it was asked. */
    async failover() {
      const port = await master();
      const answer = (await cli(sentinelPorts[0], ['sentinel', 'failover', name])).trim();
      if (answer !== 'OK') throw new Error(`SENTINEL FAILOVER answered ${JSON.stringify(answer)}`);
      return port;
    },
    /** The new master, once the sentinels agree on one other than `old` (within `ms`, 30 s). */
    promotedFrom: (old, ms = 30_000) => promotedFrom(old, ms),
    /**
     * A killed node back (empty) as a replica of the current master, once in sync; the sentinels, which
     * keep it as a replica, see it come back.
     */
    async restart(port) {
      if (nodes.has(port)) throw new Error(`Redis node on ${port} is running`);
      await startNode(port, await master());
      await waitUntil(() => linkUp(port), `restarted replica on ${port} did not sync`);
      await waitUntil(() => replicaFit(port), `the sentinels did not see the replica on ${port} back`);
    },
    /** redis-cli against `port`: its stdout ('' when it failed). */
    cli: (args, port) => cli(port, args),
    /**
     * Each running node's role and its clients but the sentinels' and this one, with the name BullMQ gave
     * (a worker's first connection), age, idle seconds and the command each last ran: where a worker that
     * stopped taking jobs is left connected, and waiting on what.
     */
    async clients() {
      const each = await Promise.all(
        [...nodes.keys()].map(async (port) => {
          const role = /^role:(\w+)/m.exec(await cli(port, ['info', 'replication']))?.[1] ?? 'silent';
          const named = (await cli(port, ['client', 'list']))
            .split('\n')
            .filter((line) => line && !/ name=sentinel-| cmd=client\|list/.test(line))
            .map((line) =>
              ['name', 'age', 'idle', 'flags', 'cmd']
                .map((k) => new RegExp(` ${k}=(\\S*)`).exec(line)?.[0])
                .join(''),
            );
          return [`${port} ${role}, ${named.length} clients:`, ...named].join('\n  ');
        }),
      );
      return each.join('\n');
    },
    async destroy() {
      for (const each of [...nodes.values(), ...sentinelChildren]) {
        await endChild(each, 'SIGKILL');
      }
      nodes.clear();
      rmSync(dir, { recursive: true, force: true });
      forget();
    },
  };
}
