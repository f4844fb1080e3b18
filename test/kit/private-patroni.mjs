// A Postgres that fails over, for tests and the failover soak: one etcd, two Patroni nodes with synchronous
// replication, and HAProxy in front routing to whichever node Patroni's REST API says is the primary. All
// from Debian's packages (etcd-server, patroni, haproxy), on free private ports, as children of this
// process; killed and removed when it exits. Plain Node ESM (types: private-patroni.d.mts).
//
// Clients take one host (`pg` does): HAProxy's `primary` port is DATABASE_URL, its `replicas` port
// DATABASE_REPLICA_URL. HAProxy asks each node's Patroni `GET /primary` every second; a node that stops
// answering 200 is marked down and every session through it is cut (`on-marked-down shutdown-sessions`),
// so no client keeps talking to a demoted or unreachable primary. docs/failover.md#postgres-patroni-behind-haproxy
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  atExit,
  freePort,
  postgresBin,
  postgresDir,
  postgresIds,
  reachable,
  waitUntil,
} from './private-services.mjs';

/**
 * Patroni's timing, as docs/operations.md recommends it: the leader key lives `ttl` seconds, each node
 * looks every `loop_wait`, and gives up on etcd or Postgres after `retry_timeout`
 * (loop_wait + 2 × retry_timeout ≤ ttl, Patroni's own rule). A dead primary's key expires within `ttl`,
 * the standby sees it within `loop_wait` and promotes: writes are back within ttl + loop_wait + HAProxy's
 * next check (`inter` 1 s, `rise` 1).
 */
export const PATRONI_TIMING = { ttl: 20, loop_wait: 5, retry_timeout: 5 };

const SCOPE = 'bff';

/** Starts `command` in a process group of its own (so a kill takes its children too), output to `log`. */
function child(command, args, { log, asPostgresUser = false }) {
  const ids = asPostgresUser && process.getuid?.() === 0 ? postgresIds() : undefined;
  writeFileSync(log, '', { flag: 'a' });
  if (ids) chownSync(log, ids.uid, ids.gid);
  const started = spawn('sh', ['-c', 'exec "$0" "$@" >> "$LOG" 2>&1', command, ...args], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, LOG: log },
    ...ids,
  });
  started.unref();
  started.exited = new Promise((resolve) => started.once('exit', resolve));
  return started;
}

/** SIGKILL to a process group, as a machine's loss ends everything on it at once. */
function killGroup(proc) {
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** `fetch` with a short bound, or undefined when nothing answers. */
async function ask(url, init = {}, ms = 2_000) {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(ms) });
  } catch {
    return undefined;
  }
}

function patroniConfig({ name, dir, restPort, pgPort, etcdPort, timing }) {
  return {
    scope: SCOPE,
    name,
    restapi: { listen: `127.0.0.1:${restPort}`, connect_address: `127.0.0.1:${restPort}` },
    etcd3: { hosts: [`127.0.0.1:${etcdPort}`] },
    bootstrap: {
      dcs: {
        ...timing,
        // A promoted standby holds every commit a client was told of: Patroni names the other node in
        // synchronous_standby_names and only ever promotes the synchronous one.
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            synchronous_commit: 'on',
            wal_log_hints: 'on',
            max_connections: 200,
            max_wal_senders: 10,
            max_replication_slots: 10,
            wal_keep_size: '256MB',
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { username: 'postgres' }],
      pg_hba: [
        'local all all trust',
        'host all all 127.0.0.1/32 trust',
        'host replication all 127.0.0.1/32 trust',
      ],
    },
    postgresql: {
      listen: `127.0.0.1:${pgPort}`,
      connect_address: `127.0.0.1:${pgPort}`,
      data_dir: join(dir, 'data'),
      bin_dir: postgresBin(),
      pgpass: join(dir, 'pgpass'),
      authentication: {
        superuser: { username: 'postgres' },
        replication: { username: 'postgres' },
        rewind: { username: 'postgres' },
      },
      // fsync off: a test kills processes, never the machine's page cache; the WAL still reaches the standby
      // before a commit is acknowledged, which is what is tested.
      parameters: { unix_socket_directories: dir, fsync: 'off' },
    },
  };
}

function haproxyConfig({ primaryPort, replicaPort, nodes }) {
  const servers = nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.pgPort} check port ${n.restPort}`);
  const listen = (name, port, check) => [
    `listen ${name}`,
    `  bind 127.0.0.1:${port}`,
    `  option httpchk OPTIONS ${check}`,
    '  http-check expect status 200',
    // Checked every second; one failure marks a node down and cuts its sessions at once.
    '  default-server inter 1s fall 1 rise 1 on-marked-down shutdown-sessions',
    ...servers,
  ];
  return [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout check 1s',
    // A LISTEN connection is idle for long stretches: a short timeout would cut it for nothing.
    '  timeout client 1h',
    '  timeout server 1h',
    ...listen('primary', primaryPort, '/primary'),
    ...listen('replicas', replicaPort, '/replica'),
    '',
  ].join('\n');
}

/**
 * etcd, two Patroni nodes (pg1 bootstraps and leads, pg2 follows as the synchronous standby) and HAProxy.
 * Resolves once a write through HAProxy's primary port commits on both nodes and the `bff` database
 * exists.
 */
export async function startPrivatePatroni({ timing = PATRONI_TIMING } = {}) {
  const dir = postgresDir('bff-patroni-');
  /** etcd and HAProxy once started; the nodes' processes are on `nodes`. */
  const others = [];
  const nodes = [];
  const stopAll = () => {
    for (const node of nodes) killNode(node);
    for (const proc of others) killGroup(proc);
    rmSync(dir, { recursive: true, force: true });
  };
  const forget = atExit(stopAll);
  const [etcdPort, etcdPeerPort, primaryPort, replicaPort] = await Promise.all(
    Array.from({ length: 4 }, freePort),
  );
  const etcd = child(
    'etcd',
    [
      ...['--name', 'etcd1', '--data-dir', join(dir, 'etcd')],
      ...['--listen-client-urls', `http://127.0.0.1:${etcdPort}`],
      ...['--advertise-client-urls', `http://127.0.0.1:${etcdPort}`],
      ...['--listen-peer-urls', `http://127.0.0.1:${etcdPeerPort}`],
      ...['--initial-advertise-peer-urls', `http://127.0.0.1:${etcdPeerPort}`],
      ...['--initial-cluster', `etcd1=http://127.0.0.1:${etcdPeerPort}`],
    ],
    { log: join(dir, 'etcd.log') },
  );
  others.push(etcd);
  await waitUntil(() => reachable(etcdPort), `etcd on ${etcdPort} did not come up`);

  for (const name of ['pg1', 'pg2']) {
    const [restPort, pgPort] = [await freePort(), await freePort()];
    const nodeDir = join(dir, name);
    spawnSync('install', ['-d', '-m', '700', '-o', 'postgres', nodeDir]);
    const configFile = join(dir, `${name}.yml`);
    // JSON is YAML: no YAML writer needed.
    writeFileSync(
      configFile,
      JSON.stringify(patroniConfig({ name, dir: nodeDir, restPort, pgPort, etcdPort, timing })),
    );
    nodes.push({ name, restPort, pgPort, configFile, log: join(dir, `${name}.log`), proc: null });
  }
  const startNode = (node) => {
    node.proc = child('patroni', [node.configFile], { log: node.log, asPostgresUser: true });
  };
  const role = async (node) => (await (await ask(`http://127.0.0.1:${node.restPort}/patroni`))?.json())?.role;
  const clusterState = async () =>
    (await (await ask(`http://127.0.0.1:${nodes[0].restPort}/cluster`))?.json()) ??
    (await (await ask(`http://127.0.0.1:${nodes[1].restPort}/cluster`))?.json());

  // pg1 first, so it bootstraps; pg2 then clones it.
  startNode(nodes[0]);
  await waitUntil(async () => (await role(nodes[0])) === 'master', 'pg1 did not become the leader', 60_000);
  startNode(nodes[1]);

  const haproxyFile = join(dir, 'haproxy.cfg');
  writeFileSync(haproxyFile, haproxyConfig({ primaryPort, replicaPort, nodes }));
  others.push(child('haproxy', ['-f', haproxyFile, '-db'], { log: join(dir, 'haproxy.log') }));

  const state = {
    dir,
    nodes,
    url: `postgresql://postgres@127.0.0.1:${primaryPort}/bff`,
    replicaUrl: `postgresql://postgres@127.0.0.1:${replicaPort}/bff`,
    primaryPort,
    replicaPort,
    /** The current leader's name (pg1 or pg2), from Patroni, or undefined while there is none. */
    async leader() {
      const members = (await clusterState())?.members ?? [];
      return members.find((m) => m.role === 'leader' && m.state === 'running')?.name;
    },
    /** The synchronous standby's name, once the leader has one. */
    async syncStandby() {
      const members = (await clusterState())?.members ?? [];
      return members.find((m) => m.role === 'sync_standby' && ['running', 'streaming'].includes(m.state))
        ?.name;
    },
    /** Waits until there is a leader and a streaming synchronous standby: the cluster is whole. */
    async whole(ms = 90_000) {
      await waitUntil(
        async () => Boolean((await state.leader()) && (await state.syncStandby())),
        'Patroni cluster not whole',
        ms,
      );
    },
    /**
     * The loss of the leader's machine: its Patroni and its Postgres SIGKILLed at once (every process of
     * the node). Resolves with the node's name; it stays down until `restart(name)`.
     */
    async killLeader() {
      const name = await state.leader();
      const node = nodes.find((n) => n.name === name);
      if (!node) throw new Error('no leader to kill');
      const proc = node.proc;
      killNode(node);
      await proc.exited;
      return name;
    },
    /** Starts a killed node's Patroni again: it rejoins as a standby (pg_rewind when it must). */
    async restart(name) {
      const node = nodes.find((n) => n.name === name);
      if (!node || node.proc) return;
      startNode(node);
    },
    /**
     * A planned switchover to the other node, through Patroni's REST API: the leader stops its Postgres
     * (57P01 to its sessions), the synchronous standby promotes, the old leader follows it.
     */
    async switchover() {
      const leader = await state.leader();
      const candidate = nodes.find((n) => n.name !== leader)?.name;
      const res = await ask(
        `http://127.0.0.1:${nodes.find((n) => n.name === leader).restPort}/switchover`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ leader, candidate }),
        },
        // Patroni answers once the candidate has taken over (or the attempt failed).
        60_000,
      );
      if (!res || res.status !== 200)
        throw new Error(`switchover refused: ${res?.status} ${await res?.text()}`);
      return { from: leader, to: candidate };
    },
    /** The last lines of every part's log, for a failure report. */
    logs(lines = 20) {
      return ['etcd', ...nodes.map((n) => n.name), 'haproxy']
        .map((part) => {
          let text = '';
          try {
            text = readFileSync(join(dir, `${part}.log`), 'utf8');
          } catch {
            // Not written yet.
          }
          return `--- ${part}\n${text.split('\n').slice(-lines).join('\n')}`;
        })
        .join('\n');
    },
    async destroy() {
      forget();
      stopAll();
    },
  };
  try {
    await state.whole();
    await waitUntil(() => reachable(primaryPort), 'HAProxy did not come up');
    await createDatabase(state.url);
  } catch (error) {
    error.message += `\n${state.logs()}`;
    throw error;
  }
  return state;
}

/**
 * Every process of a node SIGKILLed: its Patroni (with its process group) and its Postgres, which runs in a
 * session of its own under Patroni; the backends go with the postmaster.
 */
function killNode(node) {
  const postmaster = postmasterPid(node);
  if (node.proc) killGroup(node.proc);
  node.proc = null;
  if (!postmaster) return;
  spawnSync('pkill', ['-KILL', '-P', String(postmaster)]);
  try {
    process.kill(postmaster, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** The postmaster's pid of a node, from its data directory, or undefined. */
function postmasterPid(node) {
  const config = JSON.parse(readFileSync(node.configFile, 'utf8'));
  try {
    return Number(readFileSync(join(config.postgresql.data_dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

/** `CREATE DATABASE bff` through HAProxy, once its check has found the leader. */
async function createDatabase(url) {
  const { default: pg } = await import('pg');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  await waitUntil(async () => {
    const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('CREATE DATABASE bff');
      return true;
    } catch (error) {
      if (error.code === '42P04') return true;
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }, 'the bff database could not be created through HAProxy');
}
