#!/usr/bin/env node
// Cost as the data grows: `npm run bench:scale` (builds, then runs this). Loads a database of its own
// (DATABASE_URL's name + `_bench_scale`) with generated transactions at each size in turn (10^4, 10^6,
// 10^7 by default, spread over 1,000 merchants and an account per 40 transactions), and at each size
// measures, against an api process of its own:
//   - a stored transactions page of one account (the same 10,000 records at every size): the first page
//     and a deep cursor page (after 9,000 records), req/s and p99, as a ratio to the smallest size;
//   - the plans Postgres chooses for that page, for the sync dispatcher's due-accounts batch (the
//     statement of AccountSyncStateRepository) and for the consent expiry scan's batch (the keyset of
//     ConsentLifecycleRepository.expiringSoon) (EXPLAIN ANALYZE, BUFFERS): each must walk its index, never
//     sort or scan the table once the due set is larger than a batch;
//   - syncs through the real path (scale-sync.mjs: a sandbox and a worker process on this database, the
//     jobs through the queue, every worker schedule off so the generated accounts are never synced): a
//     new bank's first sync of its 6,500-transaction account, then an incremental sync of that account,
//     ms as a ratio to the smallest size.
// Then, at the largest size: the first page read by 1, 2, 4 api processes, and --worker-banks new banks'
// first syncs done by 1, 2, 4 worker processes (rows/s; a curve, no target). Then one dispatch of --due
// accounts due at once (target: 10^6 in under 60 s). Then retention, two ways on --events merchant events
// (10^6) spread over 60 days: the batched deletes the sweep runs (how long in all, and the longest batch:
// the longest any row lock is held), against a copy partitioned by day with the 30 oldest partitions
// dropped. Last, --stored-events events stored over the users, 1% of them with a delivery still pending:
// the plans of a user's stream read (SSE replay), the delivery sweep and a retention batch.
// Options (after `npm run bench:scale --`): --sizes 10000,1000000,10000000, --seconds N per target (5),
// --connections N (8), --events N (1000000), --processes 1,2,4 (api processes sharing the first-page
// load at the largest size, the connections spread over them), --workers 1,2,4 (worker processes sharing
// the first syncs at the largest size), --worker-banks N (16: banks of 6,500 + 467 transactions whose
// first syncs each worker count does), --due N (10^6: accounts due at once for one dispatch,
// `npm run sync:dispatch` on a private Redis; 0 skips it), --stored-events N (10^7: events stored for the
// event-stream and sweep plans; 0 skips it), --out FILE (.dev/scale-results.json). The api listens on
// BENCH_API_PORT (3100), more api processes on the ports after it, the sandbox on BENCH_SANDBOX_PORT (4110).
// Stored-page caches are off (tuning storedPageCacheMb and readCacheMb 0): every read goes to Postgres.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BenchFailure } from './bench-failure.mjs';
import { benchDatabaseUrl, recreateDatabase } from './bench-store.mjs';
import { call, expectStatus } from './http-helpers.mjs';
import { onboardMerchant, startSandboxAndApi } from './processes.mjs';
import { CHUNK, retentionTwoWays, storedEventPlans } from './scale-events.mjs';
import { loadMeter, pagePlans } from './scale-measures.mjs';
import { apiEnv, processCurve, QUEUE_PREFIX } from './scale-processes.mjs';
import { report } from './scale-report.mjs';
import { dispatchDue, startScaleSync } from './scale-sync.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MERCHANTS = 1_000;
const HOT = 10_000;
const PER_ACCOUNT = 40;

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,1000000,10000000' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '8' },
    out: { type: 'string', default: '.dev/scale-results.json' },
    events: { type: 'string', default: '1000000' },
    processes: { type: 'string', default: '1,2,4' },
    workers: { type: 'string', default: '1,2,4' },
    'worker-banks': { type: 'string', default: '16' },
    due: { type: 'string', default: '1000000' },
    'stored-events': { type: 'string', default: '10000000' },
  },
});
const sizes = values.sizes.split(',').map(Number);
if (sizes.some((n) => !Number.isInteger(n) || n < HOT) || sizes.some((n, i) => i > 0 && n <= sizes[i - 1]))
  throw new BenchFailure(`--sizes: increasing integers of at least ${HOT}`);
const workerCounts = values.workers.split(',').map(Number);
if (workerCounts.some((n) => !Number.isInteger(n) || n < 1) || !(Number(values['worker-banks']) >= 1))
  throw new BenchFailure('--workers: positive integers; --worker-banks: at least 1');
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const started = Date.now();
const measure = loadMeter({ connections, seconds });
const log = (message) => console.log(`[scale +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

async function main() {
  const databaseUrl = benchDatabaseUrl('scale');
  await recreateDatabase(databaseUrl, log);
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const closers = [() => db.end()];
  const results = [];
  let retention = null;
  let processes = null;
  let workers = null;
  let dispatch = null;
  let eventPlans = null;
  try {
    const { sandbox, api } = await startSandboxAndApi(apiEnv(databaseUrl), closers);
    const { auth, merchantId } = await onboardMerchant(api.url, 'scale bench');
    const syncs = await startScaleSync({
      databaseUrl,
      queuePrefix: QUEUE_PREFIX,
      sandboxUrl: sandbox.url,
      apiUrl: api.url,
      auth,
      db,
      log,
    });
    closers.push(() => syncs.stop());
    log(
      `${MERCHANTS} merchants, each with a user and an authorised consent; the measured account, ${HOT} records`,
    );
    await db.query(
      `INSERT INTO merchants (id, name, updated_at)
       SELECT uuid_generate_v7(), 'scale merchant ' || n, now() FROM generate_series(2, $1) n`,
      [MERCHANTS],
    );
    await db.query(`
      WITH u AS (
        INSERT INTO users (id, merchant_id, reference, application_user_id, updated_at)
        SELECT uuid_generate_v7(), id, 'scale-user', 'scale-user-' || id, now() FROM merchants RETURNING id, merchant_id)
      INSERT INTO consents (id, merchant_id, user_id, kind, upstream_consent_id, institution_id, status, expires_at, updated_at)
      SELECT uuid_generate_v7(), merchant_id, id, 'ACCOUNT', 'scale-' || id, 'sandbox-redirect', 'AUTHORIZED',
        now() + interval '80 days', now() FROM u`);
    const [hot] = (
      await db.query(
        `INSERT INTO accounts (id, merchant_id, user_id, consent_id, upstream_account_id, institution_id, sync_status,
           next_sync_at, updated_at)
         SELECT uuid_generate_v7(), c.merchant_id, c.user_id, c.id, 'scale-hot', 'sandbox-redirect', 'SYNCED',
           now() + interval '1 day', now()
         FROM consents c WHERE c.merchant_id = $1 RETURNING id`,
        [merchantId],
      )
    ).rows;
    await insertTransactions(
      db,
      `a AS (SELECT $1::uuid AS id, $2::uuid AS merchant_id)`,
      [hot.id, merchantId],
      HOT,
    );
    let bulk = 0;
    let accounts = 1;
    for (const size of sizes) {
      // Grow to `size` records in all: new accounts of 40 records each, round the merchants.
      while (HOT + bulk < size) {
        const rows = Math.min(CHUNK, size - HOT - bulk);
        const n = Math.ceil(rows / PER_ACCOUNT);
        // Users as real ones come: a consent each, two accounts under it, round the merchants, the
        // accounts falling due over the next hour (a sixth already due).
        await insertTransactions(
          db,
          `m AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM merchants),
           u AS (INSERT INTO users (id, merchant_id, reference, application_user_id, updated_at)
             SELECT uuid_generate_v7(), m.id, 'u' || ($1 + g), 'u' || ($1 + g), now()
             FROM generate_series(1, $2) g JOIN m ON m.k = g % $3 RETURNING id, merchant_id),
           c AS (INSERT INTO consents (id, merchant_id, user_id, kind, upstream_consent_id, institution_id, status,
               expires_at, updated_at)
             SELECT uuid_generate_v7(), merchant_id, id, 'ACCOUNT', 'scale-' || id, 'sandbox-redirect', 'AUTHORIZED',
               now() + make_interval(days => 1 + abs(hashtext(id::text)) % 89), now() FROM u
             RETURNING id, merchant_id, user_id),
           a AS (INSERT INTO accounts (id, merchant_id, user_id, consent_id, upstream_account_id, institution_id,
               sync_status, next_sync_at, updated_at)
             SELECT uuid_generate_v7(), c.merchant_id, c.user_id, c.id, 'scale-' || j, 'sandbox-redirect', 'SYNCED',
               now() + make_interval(secs => abs(hashtext(c.id::text || j)) % 3600 - 600), now()
             FROM c, generate_series(1, 2) j RETURNING id, merchant_id)`,
          [accounts, Math.ceil(n / 2), MERCHANTS],
          PER_ACCOUNT,
        );
        accounts += Math.ceil(n / 2) * 2;
        bulk += Math.ceil(n / 2) * 2 * PER_ACCOUNT;
        log(`${(HOT + bulk).toLocaleString('en')} records in ${accounts.toLocaleString('en')} accounts`);
      }
      // As autovacuum would after such a load: visibility for index-only scans, and statistics the planner
      // can trust (a bulk load leaves every table's stale, and the plans below would be of stale stats).
      await db.query('VACUUM ANALYZE');
      const measured = await measureSize(db, api.url, auth, hot.id, merchantId, HOT + bulk, accounts);
      results.push({ ...measured, sync: await syncs.atSize(HOT + bulk) });
      report(results, undefined, { connections, seconds });
    }
    processes = await processCurve(api, sandbox.url, databaseUrl, auth, hot.id, {
      counts: values.processes.split(',').map(Number),
      measure,
      log,
    });
    workers = await syncs.workerCurve(workerCounts, Number(values['worker-banks']));
    // Idle workers all the same hold connections and listen for events; what follows needs none.
    await syncs.stop();
    report(results, workers, { connections, seconds });
    if (Number(values.due) > 0)
      dispatch = await dispatchDue(db, databaseUrl, Number(values.due), { queuePrefix: QUEUE_PREFIX, log });
    retention = await retentionTwoWays(db, merchantId, Number(values.events), log);
    const stored = Number(values['stored-events']);
    if (stored > 0) eventPlans = await storedEventPlans(db, stored, log);
  } finally {
    for (const close of closers.reverse())
      await close().catch((error) => log(`close failed: ${error.message}`));
  }
  const out = resolve(ROOT, values.out);
  mkdirSync(dirname(out), { recursive: true });
  const cpus = os.cpus();
  writeFileSync(
    out,
    JSON.stringify(
      {
        machine: { cpus: cpus.length, model: cpus[0]?.model, node: process.version },
        results,
        processes,
        workers,
        dispatch,
        retention,
        eventPlans,
      },
      null,
      2,
    ),
  );
  log(`results written to ${values.out}`);
}

/**
 * `perAccount` records for each account of `a`, the last of the common table expressions `ctes` (a SELECT,
 * or INSERTs … RETURNING that make the accounts: one statement either way), dated an hour apart back from now.
 * `raw` is a record as a sync stores it (storedTransaction: amounts as decimal text) carrying every served
 * field, so a page serves it unparsed, as it does a synced account's.
 */
async function insertTransactions(db, ctes, params, perAccount) {
  await db.query(
    `WITH ${ctes}
     INSERT INTO transactions (id, merchant_id, account_id, dedupe_key, date, booking_date_time, status, amount,
       currency, description, raw, updated_at)
     SELECT uuid_generate_v7(), a.merchant_id, a.id, 'k' || i, now() - make_interval(hours => i),
       now() - make_interval(hours => i), 'BOOKED', ((i * 37) % 10000) / 100.0, 'GBP', 'Card payment ' || i,
       jsonb_build_object('id', 'k' || i, 'description', 'Card payment ' || i, 'status', 'BOOKED',
         'date', to_char((now() - make_interval(hours => i)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         'amount', (((i * 37) % 10000) / 100.0)::numeric(19, 2)::text, 'currency', 'GBP'),
       now()
     FROM a, generate_series(1, ${Number(perAccount)}) i`,
    params,
  );
}

async function measureSize(db, apiUrl, auth, accountId, merchantId, records, accounts) {
  const [{ bytes }] = (await db.query(`SELECT pg_total_relation_size('transactions')::bigint AS bytes`)).rows;
  log(`${records.toLocaleString('en')} records: measuring`);
  // The deep page's cursor, as a client walking the account would reach it.
  let cursor = null;
  for (let page = 0; page < 9; page++) {
    const res = await expectStatus(
      'walk',
      call(
        apiUrl,
        'GET',
        `/v1/accounts/${accountId}/transactions?limit=1000${cursor ? `&cursor=${cursor}` : ''}`,
        auth,
      ),
    );
    cursor = res.body.meta.nextCursor;
  }
  // The api's first seconds (JIT, pools filling) are not the smallest size's cost: warm it, unmeasured.
  if (records === HOT) await measure(`${apiUrl}/v1/accounts/${accountId}/transactions?limit=100`, auth);
  const first = await measure(`${apiUrl}/v1/accounts/${accountId}/transactions?limit=100`, auth);
  const deep = await measure(
    `${apiUrl}/v1/accounts/${accountId}/transactions?limit=100&cursor=${cursor}`,
    auth,
  );
  const plans = await pagePlans(db, accountId, merchantId);
  return { records, accounts, tableBytes: Number(bytes), first, deep, plans };
}

const hardLimit = setTimeout(() => {
  console.error('scale bench: not done within 60 minutes; stopping');
  process.exit(1);
}, 60 * 60_000);
hardLimit.unref();
main().then(
  () => process.exit(0),
  (error) => {
    console.error(error instanceof BenchFailure ? `scale bench failed: ${error.message}` : error);
    process.exit(1);
  },
);
