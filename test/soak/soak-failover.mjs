// The failover soak of issue 80 (`npm run soak -- --failover`): the same load and invariants as the chaos
// soak, on a Postgres that fails over (Patroni + HAProxy, test/kit/private-patroni.mjs) and a Redis under
// Sentinel (test/kit/private-sentinel.mjs), with the loss of a machine and planned switchovers of each as
// the chaos. A write probe measures, for each action, the seconds
// from it to the first write acknowledged after it, and keeps every write it was answered 2xx for, so
// the verdict can say none went missing.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { ALL_QUEUES } from '../../dist/libs/queue/src/job-catalogue.js';
import { USER_PRESENT } from '../kit/user-present.mjs';
import { request } from './soak-http.mjs';

/** How often the probe writes: the resolution of "seconds to the first successful write". */
const PROBE_EVERY_MS = 200;
/** The bounds issue 80 sets, from an action to the first acknowledged write. */
export const WRITES_BACK_WITHIN_S = { postgresKilled: 30, redisKilled: 15 };
/** A job waiting or active this long after the load has settled is stuck. */
const STUCK_AFTER_MS = 120_000;

/** One kind of write the probe makes: what was acknowledged and what was not, with when it was asked. */
class Lane {
  acknowledged = [];
  refusals = [];

  /**
   * Seconds from `at` to the first acknowledgement of a write asked after it, or null (none yet): a write
   * held while the dependency was away counts from when it was answered.
   */
  secondsAfter(at) {
    const first = this.acknowledged.find((w) => w.askedAt >= at);
    return first ? (first.answeredAt - at) / 1000 : null;
  }

  /**
   * The writes refused from `at` until the first acknowledged after it: how long clients could not write
   * (first refusal to last) and what they were answered.
   */
  windowAfter(at) {
    const until = this.acknowledged.find((w) => w.askedAt >= at)?.askedAt ?? Infinity;
    const refused = this.refusals.filter((r) => r.askedAt >= at && r.askedAt < until);
    const answers = [...new Set(refused.map((r) => r.answer))].join(', ');
    const seconds = refused.length ? (refused.at(-1).askedAt - refused[0].askedAt) / 1000 : 0;
    return { refused: refused.length, seconds, answers };
  }
}

/**
 * A merchant's backend writing as fast as one connection allows, each request once (no retry, so an
 * outage shows as it is), two kinds in turn: a user created (a Postgres write) and a sync asked for (a
 * job enqueued: a Redis write). Every user it was answered 201 for is kept, to be found afterwards.
 */
export class WriteProbe {
  users = new Lane();
  syncs = new Lane();
  stopped = false;

  /** `syncOf`: an account and the key of its merchant, to ask syncs of. */
  constructor({ load, merchant, syncOf }) {
    this.load = load;
    this.merchant = merchant;
    this.syncOf = syncOf;
  }

  async run() {
    while (!this.stopped) {
      const reference = `probe-${randomUUID()}`;
      await this.write(this.users, '/v1/users', this.merchant.key, { reference }, 201, reference);
      const { accountId, key } = this.syncOf;
      await this.write(this.syncs, `/v1/accounts/${accountId}/sync`, key, undefined, 202);
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  }

  async write(lane, path, key, body, expected, reference) {
    const target = this.load.liveApis()[0];
    const askedAt = Date.now();
    const result = await request(target.url, 'POST', path, {
      headers: {
        authorization: `Bearer ${key}`,
        // The user present: a sync probed every few seconds is not one of the bank's daily reads.
        ...USER_PRESENT,
        ...(reference ? { 'idempotency-key': reference } : {}),
      },
      body,
      timeoutMs: 10_000,
    });
    this.load.answers.record(target.role.name, 'POST', path, result, { restarting: target.role.down });
    const answeredAt = Date.now();
    if (result.status === expected)
      lane.acknowledged.push({ reference, id: result.body?.data?.id, askedAt, answeredAt });
    else lane.refusals.push({ askedAt, answer: result.status ?? result.error });
  }
}

/**
 * The chaos of the failover soak, one each, in order: the Postgres primary's machine lost (Patroni and
 * Postgres SIGKILLed, the node brought back as a standby once the other has taken over), the Redis
 * master's likewise, then a planned switchover of each. Each entry is [what, act, bound in seconds or
 * null].
 */
export function failoverActions({ cluster, progress }) {
  const { postgres, redis } = cluster;
  return [
    [
      'Postgres primary SIGKILLed (machine lost; it rejoins as the standby)',
      async () => {
        const killed = await postgres.killLeader();
        await waitFor(async () => (await postgres.leader()) && (await postgres.leader()) !== killed, 120_000);
        progress(`postgres: ${await postgres.leader()} leads; ${killed} restarted as a standby`);
        await postgres.restart(killed);
        await postgres.whole(120_000);
      },
      WRITES_BACK_WITHIN_S.postgresKilled,
    ],
    [
      'Redis master SIGKILLed (machine lost; it rejoins as the replica)',
      async () => {
        const killed = await redis.killMaster();
        const promoted = await redis.promotedFrom(killed, 60_000);
        progress(`redis: ${promoted} is the master; ${killed} restarted as its replica`);
        await redis.restart(killed);
      },
      WRITES_BACK_WITHIN_S.redisKilled,
    ],
    [
      'Postgres switchover (planned, through Patroni)',
      async () => {
        const { from, to } = await postgres.switchover();
        progress(`postgres: switched over from ${from} to ${to}`);
        await postgres.whole(120_000);
      },
      null,
    ],
    [
      'Redis failover (planned, SENTINEL FAILOVER)',
      async () => {
        const old = await redis.failover();
        progress(`redis: failed over from ${old} to ${await redis.promotedFrom(old, 60_000)}`);
      },
      null,
    ],
  ];
}

async function waitFor(check, ms) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The failover soak's own rows: each action's seconds to the first acknowledged write against its bound,
 * and every write the probe was answered 2xx for present exactly once afterwards.
 */
export async function failoverRows({ load, probe, chaosLog, redisConnection, queuePrefix, apiUrls }) {
  const rows = [];
  for (const action of chaosLog) {
    const at = Date.parse(action.at);
    const lanes = [
      ['users', probe.users],
      ['syncs', probe.syncs],
    ].map(([name, lane]) => ({ name, seconds: lane.secondsAfter(at), window: lane.windowAfter(at) }));
    const said = ({ name, seconds, window }) =>
      seconds === null
        ? `${name}: none acknowledged after it`
        : `${name} ${seconds.toFixed(1)} s (${window.refused} refused over ${window.seconds.toFixed(1)} s${window.answers ? `: ${window.answers}` : ''})`;
    rows.push({
      invariant: `writes back after: ${action.what}`,
      expected: action.bound ? `≤ ${action.bound} s` : 'measured',
      observed: lanes.map(said).join('; '),
      ok: lanes.every(
        ({ seconds }) => seconds !== null && (action.bound === null || seconds <= action.bound),
      ),
      details: [],
    });
  }
  const acknowledged = probe.users.acknowledged;
  const ids = acknowledged.map((w) => w.id);
  const stored = await load.db(
    `SELECT reference, count(*)::int AS n FROM users WHERE id = ANY($1::uuid[]) GROUP BY reference`,
    [ids],
  );
  const found = new Map(stored.map((r) => [r.reference, r.n]));
  const missing = acknowledged.filter((w) => !found.has(w.reference));
  const twice = stored.filter((r) => r.n > 1);
  const probeRefs = await load.db(
    `SELECT count(*)::int AS n FROM users WHERE reference LIKE 'probe-%' AND merchant_id = $1`,
    [probe.merchant.id],
  );
  rows.push({
    invariant: 'every write acknowledged (201) present after the failovers, once',
    expected: '0 missing, 0 twice',
    observed: `${acknowledged.length} acknowledged (${probe.users.refusals.length} refused or unanswered, ${probeRefs[0].n} stored in all): ${missing.length} missing, ${twice.length} twice`,
    ok: missing.length === 0 && twice.length === 0,
    details: [
      ...missing.map(
        (w) => `user ${w.id} (${w.reference}) asked at ${new Date(w.askedAt).toISOString()} missing`,
      ),
      ...twice.map((r) => `${r.reference} stored ${r.n} times`),
    ],
  });
  // Every payment row is one the load was answered for: a second row for one request would be a payment
  // made twice.
  const acknowledgedPayments = new Set(load.payments.map((p) => p.id));
  const paymentRows = await load.db('SELECT id FROM payments');
  const unknown = paymentRows.filter((p) => !acknowledgedPayments.has(p.id));
  const lostPayments = [...acknowledgedPayments].filter((id) => !paymentRows.some((p) => p.id === id));
  rows.push({
    invariant: 'payments: every acknowledged one stored, none the load was not answered for',
    expected: '0 missing, 0 unknown',
    observed: `${acknowledgedPayments.size} acknowledged, ${paymentRows.length} stored: ${lostPayments.length} missing, ${unknown.length} unknown`,
    ok: lostPayments.length === 0 && unknown.length === 0,
    details: [
      ...lostPayments.map((id) => `payment ${id} acknowledged, not stored`),
      ...unknown.map((p) => `payment ${p.id} stored, never acknowledged`),
    ],
  });
  rows.push(await stuckJobsRow({ connection: redisConnection(), prefix: `{${queuePrefix}}` }));
  rows.push(await replicaRow(apiUrls));
  return rows;
}

/**
 * The replica router follows the topology: once the old primary has rejoined as the standby, every api
 * reads from it again (`bff_database_replica_usable` 1), through HAProxy's `/replica` listener.
 */
async function replicaRow(apiUrls) {
  const usable = await Promise.all(
    apiUrls.map(async (url) => {
      const text = await fetch(`${url}/metrics`)
        .then((res) => res.text())
        .catch(() => '');
      return Number(/^bff_database_replica_usable(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1]);
    }),
  );
  return {
    invariant: 'every api reads from the standby again once it has rejoined',
    expected: `replica usable on ${apiUrls.length} apis`,
    observed: usable.map((u, i) => `${apiUrls[i]}: ${u}`).join(', '),
    ok: usable.every((u) => u === 1),
    details: [],
  };
}

/** Jobs of every queue waiting or active for over STUCK_AFTER_MS: none may be, once the load has settled. */
async function stuckJobsRow({ connection, prefix }) {
  const now = Date.now();
  const stuck = [];
  let seen = 0;
  for (const name of ALL_QUEUES) {
    const queue = new Queue(name, { connection, prefix });
    try {
      for (const job of await queue.getJobs(['active', 'wait', 'prioritized'])) {
        seen += 1;
        const since = job.processedOn ?? job.timestamp;
        if (now - since > STUCK_AFTER_MS)
          stuck.push(`${name} ${job.name} ${job.id} since ${new Date(since).toISOString()}`);
      }
    } finally {
      await queue.close();
    }
  }
  await connection.quit?.();
  return {
    invariant: `no job waiting or active over ${STUCK_AFTER_MS / 1000} s after the failovers`,
    expected: '0 stuck',
    observed: `${stuck.length} stuck (${seen} waiting or active now, every queue)`,
    ok: stuck.length === 0,
    details: stuck,
  };
}
