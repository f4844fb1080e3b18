// Scenario "isolation": what one bank's or one merchant's trouble costs everyone else. A merchant's new
// connection at a healthy bank (sandbox-redirect) is timed three ways in the same run: with nothing else
// going on; with another bank (sandbox-flaky) failing every call while another merchant keeps reading
// and syncing there; and with another merchant's 10,000 accounts due and dispatched just before. For
// each: approval (our callback answered) to the first page of transactions stored, approval to every
// account's first sync ended, a page read of the stored transactions, and a payment at a third bank
// (sandbox-payments) created. The figures worth quoting are the ratios to the quiet case. Its own
// database: DATABASE_URL's name + `_bench_isolation`, dropped and created.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { USER_PRESENT } from '../../kit/user-present.mjs';
import { BenchFailure } from '../bench-failure.mjs';
import { benchDatabaseUrl, freshStore, insertDueAccounts } from '../bench-store.mjs';
import { call, expectStatus } from '../http-helpers.mjs';
import { median } from '../load-generator.mjs';
import {
  onboardMerchant,
  SCHEDULES_OFF,
  startConsumingWorker,
  startSandboxAndApi,
  until,
} from '../processes.mjs';
import { connectBank } from './api-reads.mjs';

const QUEUE_PREFIX = 'bff-bench-isolation';
/** New connections timed per case (medians reported), page reads each, the noisy neighbour's accounts. */
const FULL = { samples: 3, reads: 50, noisyAccounts: 10_000 };
/** --smoke: one connection per case behind a small neighbour. */
const SMOKE = { samples: 1, reads: 5, noisyAccounts: 100 };
/** A ratio to the quiet case under which a new connection's sync counts as "its usual speed". */
const TARGET_RATIO = 1.5;
const PAYMENT = {
  institutionId: 'sandbox-payments',
  amount: { amount: '10.00', currency: 'GBP' },
  payee: {
    name: 'Jane Saver',
    accountIdentifications: [
      { type: 'SORT_CODE', identification: '123456' },
      { type: 'ACCOUNT_NUMBER', identification: '12345678' },
    ],
  },
  reference: 'Bench',
  redirectUrl: 'https://example.com/pay/done',
};
const dist = (path) => fileURLToPath(new URL(`../../../dist/${path}`, import.meta.url));

/** One new connection of the merchant at the healthy bank, and what it costs: ms of each step. */
async function newConnection(apiUrl, auth, db, tag, size) {
  const user = await expectStatus(
    'POST /v1/users',
    call(apiUrl, 'POST', '/v1/users', auth, { reference: `isolation-${tag}` }),
    201,
  );
  const userId = user.body.data.id;
  await connectBank(apiUrl, auth, userId);
  const approved = Date.now();
  const firstPage = await until(
    'the first page stored',
    async () => {
      const { rows } = await db.query(
        'SELECT 1 FROM transactions t JOIN accounts a ON a.id = t.account_id WHERE a.user_id = $1 LIMIT 1',
        [userId],
      );
      return rows.length ? Date.now() : undefined;
    },
    120_000,
    20,
  );
  const synced = await until(
    'every first sync ended',
    async () => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS accounts, count(r.id) FILTER (WHERE r.status = 'SUCCEEDED')::int AS done,
           count(r.id) FILTER (WHERE r.status = 'FAILED')::int AS failed
         FROM accounts a LEFT JOIN sync_runs r ON r.account_id = a.id WHERE a.user_id = $1`,
        [userId],
      );
      if (rows[0].failed) throw new BenchFailure(`a first sync at the healthy bank failed (${tag})`);
      return rows[0].accounts > 0 && rows[0].done === rows[0].accounts ? Date.now() : undefined;
    },
    300_000,
    50,
  );
  const accounts = await expectStatus(
    'GET accounts',
    call(apiUrl, 'GET', `/v1/users/${userId}/accounts`, auth),
  );
  const path = `/v1/accounts/${accounts.body.data[0].id}/transactions?limit=100`;
  const reads = [];
  for (let i = 0; i < size.reads; i += 1) {
    const started = performance.now();
    await expectStatus('GET transactions', call(apiUrl, 'GET', path, auth));
    reads.push(performance.now() - started);
  }
  const started = performance.now();
  await expectStatus(
    'POST payment',
    call(
      apiUrl,
      'POST',
      `/v1/users/${userId}/payments`,
      { ...auth, 'idempotency-key': `pay-${tag}` },
      PAYMENT,
    ),
    201,
  );
  return {
    firstPageMs: firstPage - approved,
    syncedMs: synced - approved,
    readP50Ms: median(reads),
    paymentMs: performance.now() - started,
  };
}

async function samples(apiUrl, auth, db, label, size) {
  const runs = [];
  for (let i = 0; i < size.samples; i += 1)
    runs.push(await newConnection(apiUrl, auth, db, `${label}-${i}`, size));
  const of = (key) => median(runs.map((r) => r[key]));
  return {
    label,
    firstPageMs: of('firstPageMs'),
    syncedMs: of('syncedMs'),
    readP50Ms: of('readP50Ms'),
    paymentMs: of('paymentMs'),
  };
}

/**
 * Another merchant at sandbox-flaky, which now fails every call (blaming the upstream, the hardest case):
 * its user reads live transactions and asks for syncs throughout, until `stop()`.
 */
async function failingBank(apiUrl, sandboxUrl, db) {
  const { auth } = await onboardMerchant(apiUrl, 'isolation bench: the failing bank’s merchant');
  const user = await expectStatus(
    'POST /v1/users',
    call(apiUrl, 'POST', '/v1/users', auth, { reference: 'flaky-user' }),
    201,
  );
  await connectBank(apiUrl, auth, user.body.data.id, 'sandbox-flaky');
  const { rows } = await until(
    'the failing bank’s accounts',
    async () => {
      const found = await db.query('SELECT id FROM accounts WHERE user_id = $1', [user.body.data.id]);
      return found.rows.length ? found : undefined;
    },
    60_000,
  );
  const admin = { authorization: `Bearer ${process.env.SANDBOX_ADMIN_TOKEN ?? 'sandbox-admin-token'}` };
  const fault = await expectStatus(
    'POST fault',
    call(sandboxUrl, 'POST', '/sandbox/admin/faults', admin, {
      path: '/**',
      institution: 'sandbox-flaky',
      status: 500,
    }),
    201,
  );
  let stopped = false;
  const traffic = (async () => {
    for (let i = 0; !stopped; i += 1) {
      const account = rows[i % rows.length].id;
      // The user present: their live reads and syncs are not the bank's daily allowance.
      await call(apiUrl, 'GET', `/v1/accounts/${account}/transactions/live`, { ...auth, ...USER_PRESENT });
      if (i % 5 === 0) {
        await call(apiUrl, 'POST', `/v1/accounts/${account}/sync`, { ...auth, ...USER_PRESENT });
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await traffic;
      await call(sandboxUrl, 'DELETE', `/sandbox/admin/faults/${fault.body.data.id}`, admin);
    },
  };
}

/** Another merchant's `count` accounts, due now and dispatched: their jobs queued before ours. */
async function noisyNeighbour(db, env, count) {
  const {
    rows: [consent],
  } = await db.query(
    `WITH m AS (INSERT INTO merchants (id, name, updated_at) VALUES (gen_random_uuid(), 'noisy neighbour', now()) RETURNING id),
          u AS (INSERT INTO users (id, merchant_id, reference, application_user_id, updated_at)
                SELECT gen_random_uuid(), m.id, 'noisy', gen_random_uuid(), now() FROM m RETURNING id, merchant_id)
     INSERT INTO consents (id, merchant_id, user_id, kind, upstream_consent_id, institution_id, status, updated_at)
     SELECT gen_random_uuid(), u.merchant_id, u.id, 'ACCOUNT', 'noisy-' || gen_random_uuid(), 'sandbox-redirect',
       'AUTHORIZED', now() FROM u RETURNING id, merchant_id, user_id`,
  );
  await insertDueAccounts(db, consent, count, 'noisy-');
  const dispatched = spawnSync(process.execPath, [dist('apps/worker/src/cli/sync-dispatch.cli.js')], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (dispatched.status !== 0)
    throw new BenchFailure(`sync dispatch failed: ${dispatched.stderr || dispatched.stdout}`);
  return JSON.parse(dispatched.stdout.trim().split('\n').at(-1)).enqueued;
}

export async function isolationBench({ options, progress }) {
  const size = options.smoke ? SMOKE : FULL;
  const databaseUrl = benchDatabaseUrl('isolation');
  const env = { DATABASE_URL: databaseUrl, QUEUE_PREFIX, ...SCHEDULES_OFF };
  const { queue, db, closers } = await freshStore(databaseUrl, QUEUE_PREFIX, ['sync'], progress);
  try {
    const { sandbox, api } = await startSandboxAndApi(env, closers);
    const workerEnv = { ...env, UPSTREAM_BASE_URL: sandbox.url };
    await startConsumingWorker(workerEnv, queue, closers, 60_000);
    const { auth } = await onboardMerchant(api.url, 'isolation bench');

    progress(`quiet: ${size.samples} new connections at a healthy bank`);
    const quiet = await samples(api.url, auth, db, 'quiet', size);

    progress('one bank failing every call while another merchant uses it');
    const failing = await failingBank(api.url, sandbox.url, db);
    const withFailing = await samples(api.url, auth, db, 'failing', size);
    await failing.stop();

    progress(`a noisy neighbour: ${size.noisyAccounts.toLocaleString('en')} accounts due, dispatched`);
    const enqueued = await noisyNeighbour(db, workerEnv, size.noisyAccounts);
    const waiting = await queue.getJobCountByTypes('wait', 'prioritized', 'delayed');
    const withNoisy = await samples(api.url, auth, db, 'noisy', size);
    const left = await queue.getJobCountByTypes('wait', 'prioritized', 'delayed');
    await queue.obliterate({ force: true });

    const cases = [quiet, withFailing, withNoisy];
    const ratio = (c, key) => c[key] / quiet[key];
    // The target is on what isolation promises: the new connection is neither failed nor queued behind
    // the trouble. Reads and the payment share two cores with the trouble's own work: reported, for context.
    const met = [withFailing, withNoisy].every((c) =>
      ['firstPageMs', 'syncedMs'].every((key) => ratio(c, key) <= TARGET_RATIO),
    );
    const ms = (n) => `${n.toFixed(n < 100 ? 1 : 0)} ms`;
    return {
      kind: 'isolation',
      name: 'isolation: a new connection at a healthy bank, quiet vs one bank failing vs a noisy neighbour',
      cases,
      enqueued,
      meetsTarget: met,
      notes: [
        ...cases.map(
          (c) =>
            `${c.label.padEnd(7)}: approval → first page ${ms(c.firstPageMs)}, → synced ${ms(c.syncedMs)}; page read p50 ${ms(c.readP50Ms)}; payment created ${ms(c.paymentMs)}` +
            (c === quiet
              ? ' (baseline)'
              : ` (×${ratio(c, 'firstPageMs').toFixed(2)}, ×${ratio(c, 'syncedMs').toFixed(2)}, ×${ratio(c, 'readP50Ms').toFixed(2)}, ×${ratio(c, 'paymentMs').toFixed(2)})`),
        ),
        `noisy neighbour: ${enqueued.toLocaleString('en')} jobs enqueued, ${waiting.toLocaleString('en')} waiting when the first connection began, ${left.toLocaleString('en')} still waiting after the last`,
        `medians of ${size.samples} connections each; target: approval → first page and → synced within ×${TARGET_RATIO} of quiet in both → ${met ? 'met' : 'NOT met'}`,
      ],
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}
