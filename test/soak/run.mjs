#!/usr/bin/env node
// The chaos soak of issue 26: `npm run soak [-- --minutes N --seed S --json FILE]`. Plain Node ESM.
//
// A private Redis and Postgres, the sandbox with faults on (5xx, 429, dropped connections), two api
// processes and two workers; a seeded load (merchants, users, banks connected, event streams, syncs,
// reads, payments, VRP, upstream webhooks); on a schedule a worker SIGKILLed, Redis restarted empty,
// Postgres restarted, an api restarted. Then faults off, a bounded wait for the system to settle, and a
// table of invariants. Exit 0 only when every one holds; otherwise what broke, with ids, and the last
// log lines of every process.
//
// One file past 300 lines on purpose: it is the run's script, read top to bottom as its phases (start,
// load, chaos, settle, verdict); its parts (cluster, load, failover, invariants, verdict) live beside it.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { clearInterval, setInterval } from 'node:timers';
import { parseArgs } from 'node:util';
import { CLAIM_LEASE_SECONDS } from '../../dist/libs/domain/payments/src/payment-claim-lease.js';
import { USER_PRESENT } from '../kit/user-present.mjs';
import { startCluster } from './soak-cluster.mjs';
import { failoverActions, failoverRows, WriteProbe } from './soak-failover.mjs';
import { AnswerLog } from './soak-http.mjs';
import { checkInvariants, unsettled } from './soak-invariants.mjs';
import { Load, seededRandom } from './soak-load.mjs';
import { processRows } from './soak-process-rows.mjs';
import { verdict } from './soak-verdict.mjs';

const started = Date.now();
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '1' },
    seed: { type: 'string' },
    json: { type: 'string' },
    'settle-seconds': { type: 'string' },
    failover: { type: 'boolean', default: false },
  },
});
const failover = values.failover;
const minutes = Number(values.minutes);
if (!(minutes > 0 && minutes <= 24 * 60))
  throw new Error('--minutes takes a number of minutes (0 < N ≤ 1440)');
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
if (!Number.isInteger(seed)) throw new Error('--seed takes an integer');
const loadMs = minutes * 60_000;
const settleMs = Number(values['settle-seconds'] ?? Math.max(60, Math.min(300, minutes * 20))) * 1000;

/** Steady load before, between and after the failover soak's actions. */
const FAILOVER_GAP_MS = 20_000;
/** Concurrent actors of the long form (more than 1 minute): each a user's worth of steps at a time. */
const LONG_FORM_ACTORS = 24;

const log = (line) => console.log(`[soak +${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Asks `probe` every `everyMs` until it answers something other than undefined or `deadline` (ms since the
 * epoch) passes: its last answer then, or undefined.
 */
async function pollUntil(deadline, probe, everyMs = 200) {
  for (;;) {
    const answer = await probe();
    if (answer !== undefined || Date.now() > deadline) return answer;
    await sleep(Math.min(everyMs, Math.max(0, deadline - Date.now())));
  }
}
log(
  `seed ${seed} (replay: npm run soak -- --minutes ${minutes} --seed ${seed}); ${os.availableParallelism()} CPUs`,
);

const rng = seededRandom(seed);
const answers = new AnswerLog();
const cluster = await startCluster({ progress: log, queuePrefix: `soak-${seed}`, failover });
const load = new Load({ cluster, answers, rng, progress: log });
/** The sandbox keeps its last 1,000 deliveries: read them as the run goes, merged by delivery id. */
const sandboxDeliveries = new Map();
const readDeliveries = async () => {
  const res = await load.sandboxCall('GET', '/sandbox/admin/webhooks/deliveries');
  for (const d of res.body?.data ?? []) sandboxDeliveries.set(d.id, d);
};
const deliveriesTimer = setInterval(() => void readDeliveries().catch(() => undefined), 3_000);

const chaosLog = [];
let rows = [];
let probe = null;
let fatal = null;
try {
  // ---- load: set up, with the faults already on
  const faults = [
    { method: 'GET', path: '/accounts/**', status: 500, rate: 0.1 },
    { method: 'GET', path: '/accounts/**', status: 429, retryAfterSeconds: 1, rate: 0.05 },
    { path: '/accounts/**', drop: true, rate: 0.04 },
    { method: 'GET', path: '/payments/**', status: 503, rate: 0.25 },
    { method: 'POST', path: '/variable-recurring-payments/payments', drop: true, rate: 0.15 },
  ];
  for (const fault of faults) await load.sandboxCall('POST', '/sandbox/admin/faults', fault);
  await load.startReceiver();
  await load.registerUpstreamWebhook();
  const long = minutes > 1;
  const merchantCount = long ? 4 : 2;
  const usersPerMerchant = long ? 3 : 2;
  log(
    `onboarding ${merchantCount} merchants × ${usersPerMerchant} users (banks connected, VRP for the first)`,
  );
  for (let m = 0; m < merchantCount; m += 1) {
    const merchant = await load.onboardMerchant(m);
    for (let u = 0; u < usersPerMerchant; u += 1) await load.onboardUser(merchant, u);
  }

  // ---- chaos on a schedule, the load running throughout
  for (const role of cluster.roles) role.measureStart();
  const loadStart = Date.now();
  const loadUntil = loadStart + loadMs;
  const processActions = [
    [
      'SIGKILL a worker (restarted after an outage)',
      async (i) => {
        const worker = cluster.workers[i % 2];
        await worker.kill();
        // Down on purpose, like the other outages: its stalled jobs must wait for the other worker.
        await sleep(outage());
        worker.restarts += 1;
        await worker.start();
      },
    ],
    // Down for a few seconds, not a blink: long enough for requests, jobs and webhooks to meet the outage.
    // A worker is also stopped (SIGTERM) while Redis is away: a stop must not wait for Redis to return.
    [
      'Redis restarted without its data (a worker stopped while it was down)',
      async (i) => {
        await cluster.redis.stop();
        const worker = cluster.workers[(i + 1) % 2];
        await Promise.all([worker.stop(), sleep(outage())]);
        await cluster.redis.start();
        worker.restarts += 1;
        await worker.start();
      },
    ],
    [
      'Postgres restarted (stop -m fast, start)',
      async () => {
        await cluster.postgres.stop('fast');
        await sleep(outage());
        await cluster.postgres.start();
      },
    ],
    ['an api restarted (SIGTERM, start)', (i) => cluster.apis[i % 2].restart()],
    // An api restarted or scaled out during a Redis outage must come up and serve, then be ready once
    // Redis returns: its start resolves only when /health/ready answers 200.
    [
      'an api started while Redis is down',
      async (i) => {
        await cluster.redis.stop();
        const api = cluster.apis[(i + 1) % 2];
        await api.stop();
        api.restarts += 1;
        const starting = api.start();
        await sleep(outage());
        await cluster.redis.start();
        await starting;
      },
    ],
    [
      'Postgres restarted during bank callbacks',
      () =>
        load.paymentsThroughOutage(3, async () => {
          await cluster.postgres.stop('fast');
          await sleep(outage());
          await cluster.postgres.start();
        }),
    ],
    // One bank down hard while the others are used: its calls fail, and nothing else may (the checks
    // below hold for every other bank's syncs, reads and payments as for any other chaos).
    [
      'one bank failing every call (sandbox-payments)',
      async () => {
        const rule = await load.sandboxCall('POST', '/sandbox/admin/faults', {
          path: '/**',
          institution: 'sandbox-payments',
          status: 500,
          source: 'INSTITUTION',
        });
        await sleep(outage() * 2);
        if (rule.body?.data?.id)
          await load.sandboxCall('DELETE', `/sandbox/admin/faults/${rule.body.data.id}`);
      },
    ],
  ];
  const chaosRng = seededRandom(seed ^ 0x5eed);
  const outage = () => chaosRng.int(2000, 5000);
  const actions = failover ? failoverActions({ cluster, progress: log }) : processActions;
  const schedule = [];
  if (failover) {
    // One after another, each once the last is over and FAILOVER_GAP_MS of steady load has passed.
    actions.forEach(([what, act, bound]) => schedule.push({ what, act, bound, i: 0 }));
  } else {
    const cycleMs = Math.min(60_000, loadMs);
    for (let at = 0, i = 0; at < loadMs; at += cycleMs, i += 1)
      actions.forEach(([what, act], k) =>
        schedule.push({ at: at + ((k + 0.6) * cycleMs) / (actions.length + 0.5), what, act, i }),
      );
  }
  if (failover) {
    const merchant = await load.onboardMerchant(merchantCount);
    // Syncs are asked of the first user's current account: the load asks some too, and a second request
    // while one runs answers the same run, which is fine for a probe of the enqueue.
    const [owner] = load.users;
    const account = owner.accounts.find((a) => a.type !== 'CREDIT_CARD') ?? owner.accounts[0];
    probe = new WriteProbe({ load, merchant, syncOf: { accountId: account.id, key: owner.merchant.key } });
    void probe.run();
  }
  const chaos = (async () => {
    for (const step of failover ? schedule : schedule.filter((s) => s.at < loadMs)) {
      // Due already after a long action: at once (a negative wait warns).
      await sleep(failover ? FAILOVER_GAP_MS : Math.max(0, loadStart + step.at - Date.now()));
      const t = Date.now();
      log(`chaos: ${step.what}`);
      // Answers up to 5 s after an action count as its aftermath.
      setTimeout(() => answers.during === step.what && (answers.during = null), 5_000).unref();
      try {
        answers.during = step.what;
        await step.act(step.i);
        chaosLog.push({
          at: new Date(t).toISOString(),
          what: step.what,
          ms: Date.now() - t,
          bound: step.bound,
        });
      } catch (error) {
        chaosLog.push({
          at: new Date(t).toISOString(),
          what: step.what,
          error: error.message,
          bound: step.bound,
        });
        log(`chaos: ${step.what} failed: ${error.message}`);
      }
    }
    if (failover) {
      await sleep(FAILOVER_GAP_MS);
      load.stopped = true;
    }
  })();
  log(
    failover
      ? `load until ${schedule.length} failovers are over, ${FAILOVER_GAP_MS / 1000} s apart`
      : `load for ${minutes} min with ${schedule.length} chaos actions`,
  );
  // Three actors leave two cores breathing in npm test's short form; the long form is a crowd.
  await Promise.all([load.run(failover ? Infinity : loadUntil, long ? LONG_FORM_ACTORS : 3), chaos]);
  if (probe) probe.stopped = true;

  // ---- quiesce: faults off, every role up, a last sync of every account, then wait to settle
  log('quiesce: faults off, last sync of every account');
  load.stopped = true;
  load.receiverFailing = false;
  await load.sandboxCall('DELETE', '/sandbox/admin/faults');
  for (const role of cluster.roles) if (role.down) await role.start();
  const accounts = load.users.flatMap((u) => u.accounts.map((a) => ({ user: u, account: a })));
  const settleUntil = Date.now() + settleMs;
  // The bank changes no more from here: a run whose window reaches past this has read all of it.
  const changesEnded = Date.now();
  /**
   * A sync of the account whose window covers every change the load made. Asking joins a run already
   * active, and a run retried after an outage keeps the window of its first attempt (docs/sync.md): one
   * that began before the load's last change is waited out, then another asked for.
   */
  const finalSync = async ({ user, account }) => {
    for (let attempt = 0; attempt < 4 && Date.now() < settleUntil; attempt += 1) {
      const res = await load.api('POST', `/v1/accounts/${account.id}/sync`, {
        auth: user.merchant.key,
        headers: USER_PRESENT,
      });
      if (res.status !== 202) return;
      const syncId = res.body.data.syncId;
      const ended = await pollUntil(settleUntil, async () => {
        const run = (await load.api('GET', `/v1/syncs/${syncId}`, { auth: user.merchant.key })).body?.data;
        return run?.status === 'succeeded' || run?.status === 'failed' ? run : undefined;
      });
      const whole = !ended?.window?.before || Date.parse(ended.window.before) >= changesEnded;
      if (ended?.status === 'succeeded' && whole) return;
    }
  };
  await Promise.all(accounts.map(finalSync));
  let waiting = [];
  await pollUntil(
    settleUntil,
    async () => {
      await readDeliveries().catch(() => undefined);
      waiting = await unsettled(load, sandboxDeliveries);
      return waiting.length === 0 ? true : undefined;
    },
    500,
  );
  if (waiting.length > 0 && waiting.every((what) => what.endsWith(' payments'))) {
    // A payment whose claimer died mid-way (a worker SIGKILLed in a poll round, Postgres gone before the
    // claim was handed back) is looked at again when the claim's lease ends: the product's stated bound.
    log(`payments still open (${waiting.join('; ')}): waiting out the claim lease, ${CLAIM_LEASE_SECONDS} s`);
    await pollUntil(
      settleUntil + (CLAIM_LEASE_SECONDS + 30) * 1000,
      async () => {
        waiting = await unsettled(load, sandboxDeliveries);
        return waiting.length === 0 ? true : undefined;
      },
      1000,
    );
  }
  log(waiting.length ? `not settled within ${settleMs / 1000} s: ${waiting.join('; ')}` : 'settled');
  clearInterval(deliveriesTimer);
  await readDeliveries().catch(() => undefined);
  rows = await checkInvariants({ load, cluster, answers, sandboxDeliveries });
  if (probe)
    rows.push(
      ...(await failoverRows({
        load,
        probe,
        chaosLog,
        queuePrefix: `soak-${seed}`,
        apiUrls: cluster.apiUrls,
        redisConnection: cluster.redisConnection,
      })),
    );
} catch (error) {
  fatal = error;
} finally {
  clearInterval(deliveriesTimer);
  load.close();
  const logs = cluster.roles.map((r) => ({ name: r.name, logs: r.logs() }));
  if (failover) logs.push({ name: 'patroni, etcd and haproxy', logs: cluster.postgres.logs(8) });
  await cluster.close();
  rows.push(...processRows(cluster));
  report(logs);
}

function report(logs) {
  const heading = [
    `Chaos soak: ${minutes} min, seed ${seed}, ${((Date.now() - started) / 1000).toFixed(0)} s in all; machine ${os.availableParallelism()} CPUs ${os.cpus()[0]?.model?.trim()}, node ${process.version}`,
    `chaos: ${chaosLog.map((c) => `${c.at.slice(11, 19)} ${c.what} (${c.error ?? `${c.ms} ms`})`).join('; ')}`,
    `load: ${load.merchants.length} merchants, ${load.users.length} users, ${load.reads} reads, ${load.syncsRequested} syncs asked, ${load.payments.length} payments, ${load.emitted} webhooks emitted`,
  ];
  const { text, passed } = verdict({ heading, rows, fatal, logs });
  console.log(text);
  if (values.json) {
    writeFileSync(
      values.json,
      JSON.stringify(
        { seed, minutes, chaos: chaosLog, rows, answers: answers.toJSON(), fatal: fatal?.message ?? null },
        null,
        2,
      ),
    );
  }
  process.exitCode = passed ? 0 : 1;
  // Whatever is still open (keep-alive sockets), the verdict is in.
  setTimeout(() => process.exit(process.exitCode), 500).unref();
}
