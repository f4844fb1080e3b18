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
import http from 'node:http';
import os from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BenchFailure } from './bench-failure.mjs';
import { benchDatabaseUrl, recreateDatabase } from './bench-store.mjs';
import { call, expectStatus } from './http-helpers.mjs';
import { benchPorts, onboardMerchant, startApp, startSandboxAndApi, tuned } from './processes.mjs';
import { dispatchDue, startScaleSync } from './scale-sync.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MERCHANTS = 1_000;
const HOT = 10_000;
const PER_ACCOUNT = 40;
/** Rows one INSERT adds while loading: progress, and no statement that runs for minutes. */
const CHUNK = 1_000_000;
const QUEUE_PREFIX = 'bff-bench-scale';

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
const log = (message) => console.log(`[scale +${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);

/** `connections` keep-alive loops for `seconds`, spread over `urls` (one URL or several): req/s and latencies. */
async function measure(urls, headers) {
  const list = [urls].flat();
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const get = (url) =>
    new Promise((done, fail) => {
      const t0 = process.hrtime.bigint();
      http
        .get(url, { agent, headers }, (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200
              ? done(Number(process.hrtime.bigint() - t0) / 1e6)
              : fail(new BenchFailure(`GET ${url}: HTTP ${res.statusCode}`)),
          );
        })
        .on('error', fail);
    });
  const run = async (ms) => {
    const latencies = [];
    const until = Date.now() + ms;
    await Promise.all(
      Array.from({ length: connections }, async (_, i) => {
        while (Date.now() < until) latencies.push(await get(list[i % list.length]));
      }),
    );
    return latencies;
  };
  await run(1_000);
  const latencies = (await run(seconds * 1_000)).sort((a, b) => a - b);
  agent.destroy();
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { requests: latencies.length, rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

/** EXPLAIN (ANALYZE, BUFFERS): the plan's node lines, its time, and whether it sorted or scanned a table. */
async function explain(db, sql, params) {
  const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
  const lines = rows.map((r) => r['QUERY PLAN']);
  const nodes = lines.filter(
    (l) => /->|^\w/.test(l.trim()) && !/^(Planning|Execution|Buffers)/.test(l.trim()),
  );
  return {
    ms: Number(/Execution Time: ([\d.]+)/.exec(lines.join('\n'))?.[1]),
    sorts: nodes.some((l) => /Sort\b/.test(l) && !/Sort Key/.test(l)),
    seqScans: nodes.filter((l) => /Seq Scan/.test(l)).map((l) => l.trim()),
    indexes: [...new Set(nodes.flatMap((l) => /(?:using|Index Scan on) (\S+)/.exec(l)?.[1] ?? []))],
    plan: lines,
  };
}

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
      report(results);
    }
    processes = await processCurve(api, sandbox.url, databaseUrl, auth, hot.id);
    workers = await syncs.workerCurve(workerCounts, Number(values['worker-banks']));
    // Idle workers all the same hold connections and listen for events; what follows needs none.
    await syncs.stop();
    report(results, workers);
    if (Number(values.due) > 0)
      dispatch = await dispatchDue(db, databaseUrl, Number(values.due), { queuePrefix: QUEUE_PREFIX, log });
    retention = await retentionTwoWays(db, merchantId, Number(values.events));
    const stored = Number(values['stored-events']);
    if (stored > 0) eventPlans = await storedEventPlans(db, stored);
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
  const [row9000] = (
    await db.query(
      `SELECT date, id FROM transactions WHERE account_id = $1 ORDER BY date DESC, id DESC OFFSET 9000 LIMIT 1`,
      [accountId],
    )
  ).rows;
  const page = (after) =>
    `SELECT t.id, t.date, t.raw::text FROM (SELECT id, date FROM transactions WHERE account_id = $1
       ${after ? 'AND (date, id) < ($3, $4)' : ''} ORDER BY date DESC, id DESC LIMIT 101) p
     JOIN transactions t ON t.id = p.id WHERE t.merchant_id = $2 ORDER BY p.date DESC, p.id DESC`;
  const plans = {
    firstPage: await explain(db, page(false), [accountId, merchantId]),
    deepPage: await explain(db, page(true), [accountId, merchantId, row9000.date, row9000.id]),
    dispatcherBatch: await explain(
      db,
      `SELECT a.id, a.merchant_id, a.next_sync_at FROM accounts a
         JOIN consents c ON c.id = a.consent_id
         JOIN merchants m ON m.id = a.merchant_id AND m.disabled_at IS NULL
       WHERE a.next_sync_at <= now() AND a.sync_status <> 'STOPPED' AND a.closed_at IS NULL
         AND c.status = 'AUTHORIZED' AND (c.expires_at IS NULL OR c.expires_at > now())
       ORDER BY a.next_sync_at, a.id LIMIT 1000`,
      [],
    ),
    // The consent expiry scan's first batch (ConsentLifecycleRepository.expiringSoon): the week's expiring
    // consents in expiry order, its keyset starting just after now.
    expiryBatch: await explain(
      db,
      `SELECT c.id, c.merchant_id, c.expires_at FROM consents c
       WHERE status = 'AUTHORIZED' AND kind = 'ACCOUNT' AND expires_at <= now() + interval '7 days'
         AND (expires_at, id) > (now(), 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid)
       ORDER BY expires_at, id LIMIT 500`,
      [],
    ),
  };
  return { records, accounts, tableBytes: Number(bytes), first, deep, plans };
}

/** The api's environment: every read going to Postgres (no page caches). */
function apiEnv(databaseUrl) {
  return {
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX,
    ...tuned({ storedPageCacheMb: 0, readCacheMb: 0 }),
    UPSTREAM_WEBHOOK_AUTO_REGISTER: 'false',
  };
}

/** One more api process on `port`, as startSandboxAndApi starts the first: unthrottled, on the sandbox. */
function startApi(databaseUrl, sandboxUrl, port) {
  return startApp(
    `api-${port}`,
    'dist/apps/api/src/main.js',
    {
      ...apiEnv(databaseUrl),
      UPSTREAM_BASE_URL: sandboxUrl,
      API_PORT: String(port),
      API_HOST: '127.0.0.1',
      API_PUBLIC_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT_PER_MINUTE: '1000000',
    },
    '/health/live',
    port,
  );
}

/** The first-page read with its load spread over 1, 2, 4… api processes, on the same database. */
async function processCurve(api, sandboxUrl, databaseUrl, auth, accountId) {
  const counts = values.processes.split(',').map(Number);
  const extra = [];
  const curve = [];
  try {
    for (const n of counts) {
      while (extra.length + 1 < n)
        extra.push(await startApi(databaseUrl, sandboxUrl, benchPorts().api + 1 + extra.length));
      const urls = [api, ...extra]
        .slice(0, n)
        .map((a) => `${a.url}/v1/accounts/${accountId}/transactions?limit=100`);
      const m = await measure(urls, auth);
      curve.push({ processes: n, ...m });
      log(`${n} api process(es): ${m.rps.toFixed(0)} req/s, p99 ${m.p99.toFixed(2)} ms`);
    }
  } finally {
    for (const a of extra) await a.stop();
  }
  return curve;
}

/**
 * `count` events over every user, 1% with a delivery still pending, then the plans of the statements that
 * read the table: a user's stream from its start and from its middle (SSE replay, a page of 500), the
 * delivery sweep's batch, and a retention batch's choice of rows (its SELECT; nothing is deleted).
 */
async function storedEventPlans(db, count) {
  log(`events: ${count.toLocaleString('en')} stored over the users, 1% with a delivery pending`);
  const [{ top }] = (
    await db.query('SELECT coalesce(max(stream_seq), 0)::bigint AS top FROM merchant_events')
  ).rows;
  const [endpoint] = (
    await db.query(
      `INSERT INTO event_endpoints (id, merchant_id, url, secret_ciphertext, secret_key_id, updated_at)
       SELECT uuid_generate_v7(), id, 'https://example.com/hooks', 'bench', 'bench', now() FROM merchants LIMIT 1
       RETURNING id, merchant_id`,
    )
  ).rows;
  const [{ users }] = (await db.query('SELECT count(*)::int AS users FROM users')).rows;
  for (let done = 0; done < count; done += CHUNK) {
    const n = Math.min(CHUNK, count - done);
    await db.query(
      // The user count as a value: a join on `g % n` with n a column of the same side could not hash.
      `WITH u AS (SELECT id, merchant_id, row_number() OVER (ORDER BY id) - 1 AS k FROM users),
         e AS (
           INSERT INTO merchant_events (id, merchant_id, user_id, type, data, created_at, stream_seq)
           SELECT uuid_generate_v7(), u.merchant_id, u.id, 'sync.succeeded',
             jsonb_build_object('accountId', gen_random_uuid(), 'fetched', g % 1000),
             now() - make_interval(secs => (($4::bigint - $2 - g) * 25 * 86400 / $4)::int), $3::bigint + $2 + g
           FROM generate_series(1, $1) g JOIN u ON u.k = g % $7
           RETURNING id, stream_seq)
       INSERT INTO event_deliveries (merchant_id, endpoint_id, event_id, status, next_attempt_at, updated_at)
       SELECT $5, $6, e.id, 'PENDING', now() + make_interval(secs => (e.stream_seq % 3600)::int - 60), now()
       FROM e WHERE e.stream_seq % 100 = 0`,
      [n, done, top, count, endpoint.merchant_id, endpoint.id, users],
    );
    log(`events: ${(done + n).toLocaleString('en')}`);
  }
  await db.query('VACUUM ANALYZE merchant_events');
  await db.query('VACUUM ANALYZE event_deliveries');
  const [user] = (
    await db.query(
      `SELECT user_id, merchant_id, (SELECT stream_seq FROM merchant_events m2 WHERE m2.user_id = m.user_id
         ORDER BY stream_seq OFFSET 20 LIMIT 1)::text AS middle
       FROM merchant_events m WHERE stream_seq > $1 LIMIT 1`,
      [top],
    )
  ).rows;
  const stream = `SELECT id, type::text, created_at, user_id, data, stream_seq FROM merchant_events m
    WHERE m.user_id = $2 AND m.merchant_id = $1 AND m.stream_seq > $3::bigint ORDER BY m.stream_seq LIMIT 500`;
  const plans = {
    streamFromStart: await explain(db, stream, [user.merchant_id, user.user_id, '0']),
    streamFromMiddle: await explain(db, stream, [user.merchant_id, user.user_id, user.middle]),
    deliverySweep: await explain(
      db,
      `SELECT d.id FROM event_deliveries d JOIN merchants m ON m.id = d.merchant_id
       WHERE d.status = 'PENDING' AND d.next_attempt_at < now() AND m.disabled_at IS NULL
       ORDER BY d.next_attempt_at LIMIT 500`,
      [],
    ),
    retentionBatch: await explain(
      db,
      `SELECT e.id FROM merchant_events e
       WHERE e.created_at < now() - interval '20 days' AND e.stream_seq IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = e.id AND d.status = 'PENDING')
       ORDER BY e.created_at LIMIT 1000 FOR UPDATE OF e SKIP LOCKED`,
      [],
    ),
  };
  const [{ bytes }] = (await db.query(`SELECT pg_total_relation_size('merchant_events')::bigint AS bytes`))
    .rows;
  for (const [name, p] of Object.entries(plans))
    log(
      `events at ${count.toLocaleString('en')} (${(Number(bytes) / 2 ** 30).toFixed(1)} GiB): ${name} ${p.ms.toFixed(2)} ms, ${p.sorts ? 'SORTS' : 'no sort'}, ${p.seqScans.length ? `SEQ SCAN ${p.seqScans.join('; ')}` : 'no seq scan'}, indexes ${p.indexes.join(', ')}`,
    );
  return { count, tableBytes: Number(bytes), plans };
}

/**
 * The retention sweep's batched deletes (the statement EventsRetentionService runs, 1,000 rows a time) against
 * dropping day partitions of a partitioned copy, on the same `count` events spread over 60 days.
 */
async function retentionTwoWays(db, merchantId, count) {
  log(`retention: ${count.toLocaleString('en')} events over 60 days, half of them past 30 days`);
  // After the stream positions of the events the measured syncs recorded.
  const [{ top }] = (
    await db.query('SELECT coalesce(max(stream_seq), 0)::bigint AS top FROM merchant_events')
  ).rows;
  const events = (table) =>
    db.query(
      `INSERT INTO ${table} (id, merchant_id, type, data, created_at, stream_seq)
       SELECT uuid_generate_v7(), $1, 'sync.succeeded', jsonb_build_object('n', g),
         now() - make_interval(secs => (g::bigint * 60 * 86400 / $2)::int), $3::bigint + g
       FROM generate_series(1, $2) g`,
      [merchantId, count, top],
    );
  await events('merchant_events');
  await db.query('VACUUM ANALYZE merchant_events');
  const cutoff = new Date(Date.now() - 30 * 86_400_000);
  const batches = [];
  const t0 = Date.now();
  for (;;) {
    const b0 = process.hrtime.bigint();
    const { rowCount } = await db.query(
      `DELETE FROM merchant_events WHERE id IN (
         SELECT e.id FROM merchant_events e
         WHERE e.created_at < $1 AND e.stream_seq IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = e.id AND d.status = 'PENDING')
         ORDER BY e.created_at LIMIT 1000 FOR UPDATE OF e SKIP LOCKED)`,
      [cutoff],
    );
    batches.push(Number(process.hrtime.bigint() - b0) / 1e6);
    if (rowCount < 1000) break;
  }
  const deleteMs = Date.now() - t0;
  const v0 = Date.now();
  await db.query('VACUUM merchant_events');
  const vacuumMs = Date.now() - v0;

  // The same rows in a copy partitioned by day (as Postgres requires, the partition key in its unique key).
  await db.query(`CREATE TABLE scale_events_by_day (LIKE merchant_events INCLUDING DEFAULTS,
    PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at)`);
  for (let day = 0; day <= 61; day++) {
    await db.query(
      `CREATE TABLE scale_events_day_${day} PARTITION OF scale_events_by_day
       FOR VALUES FROM (date_trunc('day', now()) - make_interval(days => ${day}))
       TO (date_trunc('day', now()) - make_interval(days => ${day - 1}))`,
    );
  }
  await db.query('CREATE INDEX ON scale_events_by_day (user_id, stream_seq)');
  await events('scale_events_by_day');
  const d0 = Date.now();
  for (let day = 31; day <= 61; day++) await db.query(`DROP TABLE scale_events_day_${day}`);
  const dropMs = Date.now() - d0;
  await db.query('DROP TABLE scale_events_by_day');
  batches.sort((a, b) => a - b);
  const result = {
    events: count,
    batched: { ms: deleteMs, batches: batches.length, longestBatchMs: batches.at(-1), vacuumMs },
    partitions: { dropMs, dropped: 31 },
  };
  log(
    `retention: batched deletes ${(deleteMs / 1000).toFixed(1)} s in ${batches.length} batches (longest ${batches.at(-1).toFixed(1)} ms), VACUUM ${(vacuumMs / 1000).toFixed(1)} s; dropping 31 day partitions ${dropMs} ms`,
  );
  return result;
}

/** The sizes' table; with `workers`, the worker processes' curve under it. */
function report(results, workers) {
  const base = results[0];
  const fixed = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');
  const lines = [
    '',
    `| records | accounts | transactions table | first page req/s | p99 ms | ×10^4 | deep page req/s | p99 ms | ×10^4 | page plan | dispatcher batch (1,000) | expiry scan batch (500) | first sync of 6,500 ms | ×10^4 | incremental sync ms | ×10^4 |`,
    `|--:|--:|--:|--:|--:|--:|--:|--:|--:|:--|:--|:--|--:|--:|--:|--:|`,
    ...results.map((r) => {
      const plan = (p) =>
        `${fixed(p.ms, 2)} ms, ${p.sorts ? 'SORTS' : 'no sort'}, ${p.seqScans.length ? `SEQ SCAN ${p.seqScans.length}` : 'index only'}`;
      // Times, so the ratio is of cost: above ×1 is slower than at the smallest size.
      return `| ${r.records.toLocaleString('en')} | ${r.accounts.toLocaleString('en')} | ${fixed(r.tableBytes / 2 ** 20, 0)} MiB | ${fixed(r.first.rps, 0)} | ${fixed(r.first.p99, 2)} | ×${fixed(r.first.rps / base.first.rps, 2)} | ${fixed(r.deep.rps, 0)} | ${fixed(r.deep.p99, 2)} | ×${fixed(r.deep.rps / base.deep.rps, 2)} | ${plan(r.plans.deepPage)} | ${plan(r.plans.dispatcherBatch)} | ${plan(r.plans.expiryBatch)} | ${fixed(r.sync.firstSyncMs, 0)} | ×${fixed(r.sync.firstSyncMs / base.sync.firstSyncMs, 2)} | ${fixed(r.sync.incrementalMs, 0)} | ×${fixed(r.sync.incrementalMs / base.sync.incrementalMs, 2)} |`;
    }),
    ...(workers
      ? [
          '',
          `| worker processes | banks | rows | seconds | rows/s | vs ${workers[0].workers} |`,
          `|--:|--:|--:|--:|--:|--:|`,
          ...workers.map(
            (w) =>
              `| ${w.workers} | ${w.banks} | ${w.rows.toLocaleString('en')} | ${fixed(w.seconds, 2)} | ${fixed(w.rowsPerSecond, 0)} | ×${fixed(w.rowsPerSecond / workers[0].rowsPerSecond, 2)} |`,
          ),
        ]
      : []),
    '',
    `indexes used at ${results.at(-1).records.toLocaleString('en')}: page ${results.at(-1).plans.deepPage.indexes.join(', ')}; dispatcher ${results.at(-1).plans.dispatcherBatch.indexes.join(', ')}; expiry scan ${results.at(-1).plans.expiryBatch.indexes.join(', ')}`,
    `machine: ${os.cpus().length} CPUs ${os.cpus()[0]?.model?.trim()}, node ${process.version}; ${connections} connections, ${seconds} s per target`,
  ];
  console.log(lines.join('\n'));
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
