// Scenario "sync": the worker's initial sync of about 110,000 transactions (16 connected banks: 16 × 6,500
// + 16 × 467) from the sandbox into Postgres, end to end through the queue, against COPY of the same rows
// into a table like `transactions` measured in the same run; an incremental sync of an unchanged 6,500
// account against its first sync; the merchant's read of the stored page against bare Fastify serving the
// same bytes; and one dispatch of 100,000 due accounts. Everything runs as its own process, built from
// dist/, on a database of its own that is dropped and created again (DATABASE_URL's name + `_bench_sync`).
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { BenchFailure } from '../bench-failure.mjs';
import { call, expectStatus, inParallel } from '../http-helpers.mjs';
import { median } from '../load-generator.mjs';
import {
  benchDatabaseUrl,
  memoryOf,
  postgresCpuSeconds,
  recreateDatabase,
  startBare,
  startHeadless,
  startSandboxAndApi,
  tuned,
  until,
} from '../processes.mjs';
import { cpuMicros, measureRounds, ratioOf } from '../rounds.mjs';
import { connectBank } from './api-reads.mjs';

const BANKS = 16;
const DUE_ACCOUNTS = 100_000;
const QUEUE_PREFIX = 'bff-bench-sync';
const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? 'dev-admin-token-change-me';
const TARGETS = {
  vsCopy: 0.4,
  workerRssMiB: 256,
  incrementalShare: 0.05,
  dispatchSeconds: 10,
  readVsBare: 0.25,
  readP99Ms: 50,
};
const COLUMNS = `id, merchant_id, account_id, dedupe_key, date, booking_date_time, value_date_time, status, amount,
  currency, description, reference, raw, created_at, updated_at`;
const dist = (path) => fileURLToPath(new URL(`../../../dist/${path}`, import.meta.url));

/** Samples a process's RSS every 100 ms until stopped: the peak over a phase, not only at its end. */
function watchMemory(pid) {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      const { rssMiB } = memoryOf(pid);
      // An exiting process's status no longer shows its RSS.
      if (Number.isFinite(rssMiB)) peak = Math.max(peak, rssMiB);
    } catch {
      clearInterval(timer);
    }
  }, 100);
  return { stop: () => (clearInterval(timer), peak) };
}

/** How many times COPY loads the rows: its rate is the median. */
const COPY_ROUNDS = 3;

/** COPY of `rows` (COPY text format) into a fresh table like `transactions`, indexes included: rows/s. */
async function copyRate(db, text, rows, rounds = COPY_ROUNDS) {
  await db.query('DROP TABLE IF EXISTS bench_copy_target');
  await db.query('CREATE TABLE bench_copy_target (LIKE transactions INCLUDING ALL)');
  const rates = [];
  for (let i = 0; i < rounds; i += 1) {
    await db.query('TRUNCATE bench_copy_target');
    const started = performance.now();
    await new Promise((resolve, reject) => {
      const stream = db.query(copyStreams.from(`COPY bench_copy_target (${COLUMNS}) FROM STDIN`));
      stream.on('error', reject);
      stream.on('finish', resolve);
      stream.end(text);
    });
    rates.push(rows / ((performance.now() - started) / 1000));
  }
  await db.query('DROP TABLE bench_copy_target');
  return median(rates);
}

async function copyOut(db) {
  const chunks = [];
  await new Promise((resolve, reject) => {
    const stream = db.query(copyStreams.to(`COPY (SELECT ${COLUMNS} FROM transactions) TO STDOUT`));
    stream.on('data', (c) => chunks.push(c));
    stream.on('error', reject);
    stream.on('end', resolve);
  });
  return Buffer.concat(chunks);
}

function runProcess(script, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [dist(script)], {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const memory = watchMemory(child.pid);
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) => {
      const peak = memory.stop();
      if (code !== 0) reject(new BenchFailure(`${script} exited ${code}: ${out.slice(-500)}`));
      else resolve({ out, peakRssMiB: peak });
    });
  });
}

/**
 * `count` users of the merchant (references `${reference}0`, `${reference}1`…), each with a bank connected
 * through the api and the sandbox: a current account of 6,500 transactions, a savings account of 467 and a
 * credit card of none, their first syncs queued. Their user ids.
 */
export function connectBanks(apiUrl, auth, count, reference) {
  return inParallel(count, 4, async (i) => {
    const user = await expectStatus(
      'POST /v1/users',
      call(apiUrl, 'POST', '/v1/users', auth, { reference: `${reference}${i}` }),
      201,
    );
    await connectBank(apiUrl, auth, user.body.data.id);
    return user.body.data.id;
  });
}

/** Until every account of the users has a sync run ended; a failed run or a worker gone fails the bench. */
export async function untilSyncsEnded(db, workers, userIds, ms = 300_000) {
  await until(
    'every initial sync ended',
    async () => {
      const gone = workers.find((w) => w.exited() !== null);
      if (gone) throw new BenchFailure(`${gone.name} exited: ${gone.logs()}`);
      const { rows } = await db.query(
        `SELECT (SELECT count(*)::int FROM accounts WHERE user_id = ANY($1)) AS accounts,
           count(*) FILTER (WHERE r.status IN ('SUCCEEDED', 'FAILED'))::int AS ended,
           count(*) FILTER (WHERE r.status = 'FAILED')::int AS failed
         FROM sync_runs r JOIN accounts a ON a.id = r.account_id WHERE a.user_id = ANY($1)`,
        [userIds],
      );
      if (rows[0].failed > 0)
        throw new BenchFailure(
          `${rows[0].failed} sync(s) failed: ${workers.map((w) => w.logs()).join('\n')}`,
        );
      return rows[0].ended === rows[0].accounts ? true : undefined;
    },
    ms,
  );
}

/**
 * The users' accounts' sync runs, taken as one batch: the rows they stored, from the first run's start to
 * the last one's end, and where their time went (summed over runs that overlap).
 */
export async function syncFigures(db, userIds) {
  const { rows } = await db.query(
    `SELECT (SELECT count(*)::int FROM transactions t JOIN accounts a ON a.id = t.account_id
              WHERE a.user_id = ANY($1)) AS rows,
       extract(epoch FROM max(r.finished_at) - min(r.started_at)) * 1000 AS ms,
       sum((r.checkpoint->>'upstreamMs')::numeric)::int AS "upstreamMs",
       sum((r.checkpoint->>'writeMs')::numeric)::int AS "writeMs",
       sum(extract(epoch FROM r.finished_at - r.started_at) * 1000)::int AS "runMs"
     FROM sync_runs r JOIN accounts a ON a.id = r.account_id WHERE a.user_id = ANY($1)`,
    [userIds],
  );
  return rows[0];
}

/** The users' first current account (6,500 transactions from the sandbox) and its first sync's ms. */
export async function currentAccountFirstSync(db, userIds) {
  const { rows } = await db.query(
    `SELECT a.id, extract(epoch FROM r.finished_at - r.started_at) * 1000 AS ms
     FROM accounts a JOIN sync_runs r ON r.account_id = a.id
     WHERE a.type = 'CURRENT' AND a.user_id = ANY($1) ORDER BY a.id, r.id LIMIT 1`,
    [userIds],
  );
  return rows[0];
}

/** A sync of the account asked for through the api, until it succeeded: the run as the api shows it, and its ms. */
export async function syncNow(apiUrl, auth, accountId) {
  const requested = await expectStatus(
    'POST sync',
    call(apiUrl, 'POST', `/v1/accounts/${accountId}/sync`, auth),
    202,
  );
  const run = await until(
    'the incremental sync ended',
    async () => {
      const found = (await call(apiUrl, 'GET', `/v1/syncs/${requested.body.data.syncId}`, auth)).body.data;
      if (found.status === 'failed')
        throw new BenchFailure(`incremental sync failed: ${JSON.stringify(found.error)}`);
      return found.status === 'succeeded' ? found : undefined;
    },
    60_000,
  );
  return { run, ms: Date.parse(run.finishedAt) - Date.parse(run.startedAt) };
}

export async function syncBench({ load, options, progress }) {
  const databaseUrl = benchDatabaseUrl('sync');
  const env = {
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX,
    ...tuned({ syncDispatchEverySeconds: 0, institutionsRefreshMinutes: 0 }),
  };
  await recreateDatabase(databaseUrl, progress);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
  const queue = new Queue('sync', { connection: { url: redisUrl }, prefix: `{${QUEUE_PREFIX}}` });
  await queue.obliterate({ force: true });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();

  const closers = [() => queue.close(), () => db.end()];
  try {
    const { sandbox, api } = await startSandboxAndApi(env, closers);

    progress(`connecting ${BANKS} banks (their first syncs wait in the queue: no worker yet)`);
    const merchant = await expectStatus(
      'POST /admin/merchants',
      call(
        api.url,
        'POST',
        '/admin/merchants',
        { authorization: `Bearer ${ADMIN_TOKEN}` },
        { name: 'sync bench' },
      ),
      201,
    );
    const auth = { authorization: `Bearer ${merchant.body.data.apiKey.key}` };
    const users = await connectBanks(api.url, auth, BANKS, 'b');
    const accounts = Number((await db.query('SELECT count(*) FROM accounts')).rows[0].count);

    progress(`initial sync: starting the worker on ${accounts} queued accounts`);
    const workerEnv = { ...env, UPSTREAM_BASE_URL: sandbox.url };
    const postgresBefore = postgresCpuSeconds();
    let worker = startHeadless('worker', 'dist/apps/worker/src/main.js', workerEnv);
    closers.push(() => worker.stop());
    const memory = watchMemory(worker.pid);
    // CPU from when it consumes (its start-up apart): the syncs begin at once.
    await until(
      'the worker consuming',
      async () => ((await queue.getWorkersCount()) > 0 ? true : undefined),
      60_000,
      20,
    );
    const workerBefore = cpuMicros(worker.pid);
    await untilSyncsEnded(db, [worker], users);
    const workerCpuS = (cpuMicros(worker.pid) - workerBefore) / 1e6;
    const postgresCpuS = postgresCpuSeconds() - postgresBefore;
    const workerPeakRssMiB = memory.stop();
    const initial = await syncFigures(db, users);
    const syncRate = initial.rows / (initial.ms / 1000);
    const per100k = (seconds) => (seconds * 100_000) / initial.rows;

    progress(`COPY of the same ${initial.rows} rows into a table like transactions`);
    const text = await copyOut(db);
    const copyPostgresBefore = postgresCpuSeconds();
    const copyRowsPerSecond = await copyRate(db, text, initial.rows);
    const copyPostgresCpuS = (postgresCpuSeconds() - copyPostgresBefore) / COPY_ROUNDS;

    progress('incremental sync of an unchanged 6,500-transaction account');
    const current = await currentAccountFirstSync(db, users);
    const { run: incremental, ms: incrementalMs } = await syncNow(api.url, auth, current.id);

    progress('merchant read: GET /v1/accounts/{id}/transactions?limit=100 against bare Fastify');
    const readPath = `/v1/accounts/${current.id}/transactions?limit=100`;
    const body = Buffer.from(
      (await expectStatus('GET transactions', call(api.url, 'GET', readPath, auth))).text,
    );
    const bare = await startBare(new Map([[readPath, body]]));
    closers.push(() => bare.close());
    const rows = await measureRounds(
      { load, options: { ...options, connections: options.apiConnections }, progress },
      [
        {
          key: 'bare-transactions',
          label: 'bare Fastify, same bytes',
          baseUrl: bare.url,
          paths: [readPath],
          bodyBytes: body.length,
        },
        {
          key: 'api-transactions',
          label: 'api GET /v1/accounts/{id}/transactions?limit=100',
          baseUrl: api.url,
          paths: [readPath],
          headers: auth,
          bodyBytes: body.length,
        },
      ],
    );
    rows[1].ratio = ratioOf(rows[1], rows[0]);

    progress(`dispatcher: ${DUE_ACCOUNTS} accounts due, one dispatch`);
    await worker.stop();
    const {
      rows: [consent],
    } = await db.query(
      `INSERT INTO consents (id, merchant_id, user_id, kind, upstream_consent_id, institution_id, status, updated_at)
       SELECT gen_random_uuid(), u.merchant_id, u.id, 'ACCOUNT', 'bench-' || gen_random_uuid(), 'sandbox-redirect',
         'AUTHORIZED', now() FROM users u LIMIT 1 RETURNING id, merchant_id, user_id`,
    );
    await db.query(
      `INSERT INTO accounts (id, merchant_id, user_id, consent_id, upstream_account_id, institution_id, next_sync_at, updated_at)
       SELECT gen_random_uuid(), $1, $2, $3, 'due-' || n, 'sandbox-redirect', now() - interval '1 minute', now()
       FROM generate_series(1, ${DUE_ACCOUNTS}) AS n`,
      [consent.merchant_id, consent.user_id, consent.id],
    );
    await db.query('ANALYZE accounts');
    const dispatchPostgresBefore = postgresCpuSeconds();
    const dispatched = await runProcess('apps/worker/src/cli/sync-dispatch.cli.js', workerEnv);
    const dispatchPostgresCpuS = postgresCpuSeconds() - dispatchPostgresBefore;
    const dispatch = JSON.parse(dispatched.out.trim().split('\n').at(-1));
    const perDispatched = (seconds) => (seconds * 100_000) / dispatch.enqueued;
    const queued = await queue.getJobCountByTypes('wait', 'prioritized', 'delayed');
    await queue.obliterate({ force: true });

    const read = rows[1];
    const met = {
      initial: syncRate / copyRowsPerSecond >= TARGETS.vsCopy && workerPeakRssMiB < TARGETS.workerRssMiB,
      incremental: incrementalMs / current.ms < TARGETS.incrementalShare,
      dispatch: dispatch.ms / 1000 < TARGETS.dispatchSeconds && dispatch.enqueued === DUE_ACCOUNTS,
      read: read.ratio.rpsMedianOfRounds >= TARGETS.readVsBare && read.latencyMs.p99 < TARGETS.readP99Ms,
    };
    const ok = (m) => (m ? 'met' : 'NOT met');
    return {
      kind: 'sync',
      name: `sync: ${BANKS} banks' initial sync through the queue, incremental sync, dispatcher, stored read`,
      rows,
      initial: {
        ...initial,
        rowsPerSecond: syncRate,
        copyRowsPerSecond,
        vsCopy: syncRate / copyRowsPerSecond,
        workerPeakRssMiB,
        // CPU seconds per 100,000 rows: the worker's, Postgres's, and Postgres's for COPY of them.
        cpuPer100kRows: {
          worker: per100k(workerCpuS),
          postgres: per100k(postgresCpuS),
          copyPostgres: per100k(copyPostgresCpuS),
        },
      },
      incremental: {
        ms: incrementalMs,
        firstSyncMs: current.ms,
        share: incrementalMs / current.ms,
        progress: incremental.progress,
      },
      dispatch: {
        ...dispatch,
        queued,
        peakRssMiB: dispatched.peakRssMiB,
        // CPU seconds per 100,000 accounts dispatched: the dispatching process's and Postgres's.
        cpuPer100kAccounts: {
          process: perDispatched(dispatch.cpuMs / 1000),
          postgres: perDispatched(dispatchPostgresCpuS),
        },
      },
      targets: TARGETS,
      meetsTarget: met,
      notes: [
        `initial sync: ${initial.rows} transactions of ${accounts} accounts in ${(initial.ms / 1000).toFixed(2)} s = ${syncRate.toFixed(0)} rows/s; COPY of the same rows ${copyRowsPerSecond.toFixed(0)} rows/s → ×${(syncRate / copyRowsPerSecond).toFixed(2)} (target ×${TARGETS.vsCopy}); worker RSS peak ${workerPeakRssMiB.toFixed(0)} MiB (target < ${TARGETS.workerRssMiB}) → ${ok(met.initial)}`,
        `initial sync CPU per 100,000 rows: worker ${per100k(workerCpuS).toFixed(2)} s, Postgres ${per100k(postgresCpuS).toFixed(2)} s (COPY of them: Postgres ${per100k(copyPostgresCpuS).toFixed(2)} s)`,
        `where the initial sync's time goes, summed over its runs (${(initial.runMs / 1000).toFixed(1)} s of run time, concurrent): waiting for the upstream (request, transfer, parse; pages fetched ahead) ${(initial.upstreamMs / 1000).toFixed(1)} s, mapping and writing ${(initial.writeMs / 1000).toFixed(1)} s, the rest (balances, final transaction, queue) ${((initial.runMs - initial.upstreamMs - initial.writeMs) / 1000).toFixed(1)} s`,
        `incremental sync of an unchanged 6,500-transaction account: ${incrementalMs} ms (fetched ${incremental.progress.fetched}, unchanged ${incremental.progress.unchanged}) vs its first sync ${Math.round(current.ms)} ms → ${((100 * incrementalMs) / current.ms).toFixed(1)}% (target < ${TARGETS.incrementalShare * 100}%) → ${ok(met.incremental)}`,
        `dispatcher: ${dispatch.enqueued} of ${DUE_ACCOUNTS} due accounts enqueued in ${(dispatch.ms / 1000).toFixed(2)} s (${queued} jobs waiting), process RSS peak ${dispatched.peakRssMiB.toFixed(0)} MiB; CPU per 100,000 accounts: the process ${perDispatched(dispatch.cpuMs / 1000).toFixed(2)} s, Postgres ${perDispatched(dispatchPostgresCpuS).toFixed(2)} s → ${ok(met.dispatch)}`,
        `stored read: ${read.rps.toFixed(0)} req/s, p99 ${read.latencyMs.p99.toFixed(1)} ms; ×${read.ratio.rpsMedianOfRounds.toFixed(2)} of bare Fastify (median of rounds; target ×${TARGETS.readVsBare}, p99 < ${TARGETS.readP99Ms} ms) → ${ok(met.read)}`,
      ],
    };
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((error) => progress(`close failed: ${error.message}`));
    }
  }
}
