// Scenario "sync": the worker's initial sync of about 110,000 transactions (16 connected banks: 16 × 6,500
// + 16 × 467) from the sandbox into Postgres, end to end through the queue, against COPY of the same rows
// into a table like `transactions` measured in the same run; an incremental sync of an unchanged 6,500
// account against its first sync; the merchant's read of the stored page against bare Fastify serving the
// same bytes; and one dispatch of 100,000 due accounts. Everything runs as its own process, built from
// dist/, on a database of its own that is dropped and created again (DATABASE_URL's name + `_bench_sync`).
import { Buffer } from 'node:buffer';
import { availableParallelism } from 'node:os';
import { startNestBaselines } from '../baselines.mjs';
import { benchDatabaseUrl, freshStore, insertDueAccounts } from '../bench-store.mjs';
import { cpuMicros } from '../cpu.mjs';
import { call, expectStatus } from '../http-helpers.mjs';
import {
  benchPorts,
  onboardMerchant,
  startApi,
  startBare,
  startHeadless,
  startSandboxAndApi,
  tuned,
  until,
} from '../processes.mjs';
import { measureRounds, ratioOf } from '../rounds.mjs';
import {
  connectBanks,
  COPY_ROUNDS,
  copyOut,
  copyRate,
  costMeter,
  currentAccountFirstSync,
  processCosts,
  runProcess,
  syncFigures,
  syncNow,
  untilSyncsEnded,
  watchMemory,
} from './sync-steps.mjs';

const FULL = { banks: 16, dueAccounts: 100_000, incrementalSyncs: 3 };
/** --smoke: every step, over one bank and a thousand due accounts. */
const SMOKE = { banks: 1, dueAccounts: 1_000, incrementalSyncs: 1 };
const QUEUE_PREFIX = 'bff-bench-sync';
/**
 * Each CPU comparison is paced at a rate both its servers hold: the page from the caches against the minimal
 * app serving it from memory, and the page from Postgres against the minimal app reading Postgres, whose
 * full speed is a fraction of the first pair's.
 */
const PACE_KEPT = 'the kept page';
const PACE_POSTGRES = 'the page from Postgres';
const TARGETS = {
  vsCopy: 0.6,
  workerRssMiB: 256,
  incrementalShare: 0.05,
  dispatchSeconds: 10,
  readVsBare: 0.25,
  readP99Ms: 50,
  // CPU per request: the page from the api's caches against the minimal Nest app serving its bytes from
  // memory; the page read from Postgres against the same app reading the same text from Postgres.
  readVsNest: 1.3,
  uncachedVsNestPg: 1.5,
};
export async function syncBench({ load, options, progress, postgresCpu, postgresFaults }) {
  const {
    banks: BANKS,
    dueAccounts: DUE_ACCOUNTS,
    incrementalSyncs: INCREMENTAL_SYNCS,
  } = options.smoke ? SMOKE : FULL;
  const databaseUrl = benchDatabaseUrl('sync');
  const env = {
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX,
    ...tuned({ syncDispatchEverySeconds: 0, institutionsRefreshMinutes: 0 }),
  };
  const { queue, db, closers } = await freshStore(databaseUrl, QUEUE_PREFIX, ['sync'], progress);
  try {
    const { sandbox, api } = await startSandboxAndApi(env, closers);

    progress(`connecting ${BANKS} banks (their first syncs wait in the queue: no worker yet)`);
    const { auth } = await onboardMerchant(api.url, 'sync bench');
    const users = await connectBanks(api.url, auth, BANKS, 'b');
    const accounts = Number((await db.query('SELECT count(*) FROM accounts')).rows[0].count);

    progress(`initial sync: starting the worker on ${accounts} queued accounts`);
    const workerEnv = { ...env, UPSTREAM_BASE_URL: sandbox.url };
    const postgresCost = costMeter({ postgres: { cpu: postgresCpu, faults: postgresFaults } });
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
    const appsCost = costMeter({ worker: processCosts(worker.pid), sandbox: processCosts(sandbox.pid) });
    await untilSyncsEnded(db, [worker], users);
    const apps = appsCost();
    const pg = postgresCost();
    const { worker: workerCpuS, sandbox: sandboxCpuS } = apps.cpu;
    const postgresCpuS = pg.cpu.postgres;
    const faults = { ...apps.faults, postgres: pg.faults.postgres };
    const workerPeakRssMiB = memory.stop();
    const initial = await syncFigures(db, users);
    const syncRate = initial.rows / (initial.ms / 1000);
    const per100k = (seconds) => (seconds * 100_000) / initial.rows;

    progress(`COPY of the same ${initial.rows} rows into a table like transactions`);
    const text = await copyOut(db);
    const copyCost = costMeter({ postgres: { cpu: postgresCpu, faults: postgresFaults } });
    const copyRowsPerSecond = await copyRate(db, text, initial.rows);
    const copied = copyCost();
    const copyPostgresCpuS = copied.cpu.postgres / COPY_ROUNDS;
    const copyPostgresFaults = copied.faults.postgres / COPY_ROUNDS;

    progress(`incremental sync of an unchanged 6,500-transaction account, ${INCREMENTAL_SYNCS} times`);
    const current = await currentAccountFirstSync(db, users);
    // The median: the first one after the first syncs also runs the upsert path's code for the first time
    // in the worker (the first syncs appended), which says nothing of what an incremental sync costs.
    const incrementals = [];
    for (let i = 0; i < INCREMENTAL_SYNCS; i += 1)
      incrementals.push(await syncNow(api.url, auth, current.id));
    incrementals.sort((a, b) => a.ms - b.ms);
    const { run: incremental, ms: incrementalMs } = incrementals[Math.floor(INCREMENTAL_SYNCS / 2)];

    progress('merchant read: GET /v1/accounts/{id}/transactions?limit=100 against bare Fastify');
    const readPath = `/v1/accounts/${current.id}/transactions?limit=100`;
    const body = Buffer.from(
      (await expectStatus('GET transactions', call(api.url, 'GET', readPath, auth))).text,
    );
    const bare = await startBare(new Map([[readPath, body]]));
    closers.push(() => bare.close());
    const probePath = '/health/live';
    const bodies = new Map([
      [readPath, body],
      [probePath, Buffer.from((await call(api.url, 'GET', probePath)).text)],
    ]);
    const { nest, nestPg } = await startNestBaselines({
      bodies,
      auth,
      probePath,
      databaseUrl,
      fromPostgres: [readPath],
      closers,
    });
    // The same read from an api without its caches: every request reads the account's state and the page
    // from Postgres and builds the answer, as the first read of a page after a sync does.
    const uncachedApi = await startApi(
      'api-uncached',
      {
        ...env,
        ...tuned({
          syncDispatchEverySeconds: 0,
          institutionsRefreshMinutes: 0,
          storedPageCacheMb: 0,
          readCacheMb: 0,
        }),
      },
      sandbox,
      benchPorts().apiLive,
      closers,
    );
    const cpuOf = (app) => ({ cpu: () => cpuMicros(app.pid), cpuOf: 'process' });
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
          key: 'nest-transactions',
          paceGroup: PACE_KEPT,
          label: 'minimal Nest + passport, same bytes from memory',
          baseUrl: nest.url,
          paths: [readPath],
          headers: auth,
          bodyBytes: body.length,
          ...cpuOf(nest),
        },
        {
          key: 'nestpg-transactions',
          paceGroup: PACE_POSTGRES,
          label: 'minimal Nest + passport reading the same text from Postgres',
          baseUrl: nestPg.url,
          paths: [readPath],
          headers: auth,
          bodyBytes: body.length,
          ...cpuOf(nestPg),
        },
        {
          key: 'api-transactions',
          paceGroup: PACE_KEPT,
          label: 'api GET /v1/accounts/{id}/transactions?limit=100',
          baseUrl: api.url,
          paths: [readPath],
          headers: auth,
          bodyBytes: body.length,
          ...cpuOf(api),
        },
        {
          key: 'api-transactions-uncached',
          paceGroup: PACE_POSTGRES,
          label: 'the same read, the page cache off (every read from Postgres)',
          baseUrl: uncachedApi.url,
          paths: [readPath],
          headers: auth,
          bodyBytes: body.length,
          ...cpuOf(uncachedApi),
        },
      ],
    );
    const [bareRow, nestRow, nestPgRow, read, uncached] = rows;
    read.ratio = ratioOf(read, bareRow);
    read.ratioToNest = ratioOf(read, nestRow);
    uncached.ratio = ratioOf(uncached, bareRow);
    uncached.ratioToNestPg = ratioOf(uncached, nestPgRow);

    progress(`dispatcher: ${DUE_ACCOUNTS} accounts due, one dispatch`);
    await worker.stop();
    const {
      rows: [consent],
    } = await db.query(
      `INSERT INTO consents (id, merchant_id, user_id, kind, upstream_consent_id, institution_id, status, updated_at)
       SELECT gen_random_uuid(), u.merchant_id, u.id, 'ACCOUNT', 'bench-' || gen_random_uuid(), 'sandbox-redirect',
         'AUTHORIZED', now() FROM users u LIMIT 1 RETURNING id, merchant_id, user_id`,
    );
    await insertDueAccounts(db, consent, DUE_ACCOUNTS, 'due-');
    const dispatchPostgresBefore = postgresCpu();
    const dispatched = await runProcess('apps/worker/src/cli/sync-dispatch.cli.js', workerEnv);
    const dispatchPostgresCpuS = postgresCpu() - dispatchPostgresBefore;
    const dispatch = JSON.parse(dispatched.out.trim().split('\n').at(-1));
    const perDispatched = (seconds) => (seconds * 100_000) / dispatch.enqueued;
    const queued = await queue.getJobCountByTypes('wait', 'prioritized', 'delayed');
    await queue.obliterate({ force: true });

    const met = {
      initial: syncRate / copyRowsPerSecond >= TARGETS.vsCopy && workerPeakRssMiB < TARGETS.workerRssMiB,
      incremental: incrementalMs / current.ms < TARGETS.incrementalShare,
      dispatch: dispatch.ms / 1000 < TARGETS.dispatchSeconds && dispatch.enqueued === DUE_ACCOUNTS,
      read: read.ratio.rpsMedianOfRounds >= TARGETS.readVsBare && read.latencyMs.p99 < TARGETS.readP99Ms,
      readCpu: read.ratioToNest.cpu !== undefined && read.ratioToNest.cpu <= TARGETS.readVsNest,
      uncachedCpu:
        uncached.ratioToNestPg.cpu !== undefined && uncached.ratioToNestPg.cpu <= TARGETS.uncachedVsNestPg,
    };
    // The cores the first sync kept busy: the worker's, Postgres's and the sandbox's CPU over its time.
    const coresUsed = (workerCpuS + postgresCpuS + sandboxCpuS) / (initial.ms / 1000);
    const times = (ratio) => (ratio?.cpu === undefined ? 'refused' : `×${ratio.cpu.toFixed(2)}`);
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
        coresUsed,
        // CPU seconds per 100,000 rows: the worker's, Postgres's, and Postgres's for COPY of them.
        cpuPer100kRows: {
          worker: per100k(workerCpuS),
          postgres: per100k(postgresCpuS),
          sandbox: per100k(sandboxCpuS),
          copyPostgres: per100k(copyPostgresCpuS),
        },
        faultsPer100kRows: {
          worker: per100k(faults.worker),
          postgres: per100k(faults.postgres),
          sandbox: per100k(faults.sandbox),
          copyPostgres: per100k(copyPostgresFaults),
        },
      },
      incremental: {
        ms: incrementalMs,
        allMs: incrementals.map((i) => i.ms),
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
        `initial sync CPU per 100,000 rows: worker ${per100k(workerCpuS).toFixed(2)} s, Postgres ${per100k(postgresCpuS).toFixed(2)} s, the sandbox (the bank, on the same cores) ${per100k(sandboxCpuS).toFixed(2)} s (COPY of them: Postgres ${per100k(copyPostgresCpuS).toFixed(2)} s); the three kept ${coresUsed.toFixed(2)} of ${availableParallelism()} cores busy`,
        `initial sync page faults per 100,000 rows: worker ${per100k(faults.worker).toFixed(0)}, Postgres ${per100k(faults.postgres).toFixed(0)}, the sandbox ${per100k(faults.sandbox).toFixed(0)} (COPY of them: Postgres ${per100k(copyPostgresFaults).toFixed(0)})`,
        `where the initial sync's time goes, summed over its runs (${(initial.runMs / 1000).toFixed(1)} s of run time, concurrent): waiting for the upstream (request, transfer, parse; pages fetched ahead) ${(initial.upstreamMs / 1000).toFixed(1)} s, mapping and writing ${(initial.writeMs / 1000).toFixed(1)} s, the rest (balances, final transaction, queue) ${((initial.runMs - initial.upstreamMs - initial.writeMs) / 1000).toFixed(1)} s`,
        `incremental sync of an unchanged 6,500-transaction account: ${incrementalMs} ms, median of ${incrementals.map((i) => i.ms).join(', ')} (fetched ${incremental.progress.fetched}, unchanged ${incremental.progress.unchanged}) vs its first sync ${Math.round(current.ms)} ms → ${((100 * incrementalMs) / current.ms).toFixed(1)}% (target < ${TARGETS.incrementalShare * 100}%) → ${ok(met.incremental)}`,
        `dispatcher: ${dispatch.enqueued} of ${DUE_ACCOUNTS} due accounts enqueued in ${(dispatch.ms / 1000).toFixed(2)} s (${queued} jobs waiting), process RSS peak ${dispatched.peakRssMiB.toFixed(0)} MiB; CPU per 100,000 accounts: the process ${perDispatched(dispatch.cpuMs / 1000).toFixed(2)} s, Postgres ${perDispatched(dispatchPostgresCpuS).toFixed(2)} s → ${ok(met.dispatch)}`,
        `stored read: ${read.rps.toFixed(0)} req/s, p99 ${read.latencyMs.p99.toFixed(1)} ms; ×${read.ratio.rpsMedianOfRounds.toFixed(2)} of bare Fastify (median of rounds; target ×${TARGETS.readVsBare}, p99 < ${TARGETS.readP99Ms} ms) → ${ok(met.read)}`,
        `stored read, CPU per request at ${read.cpuAtRate ?? 'full'} req/s: the api ${read.cpuUsPerRequest.toFixed(0)} µs from its caches vs the minimal Nest app ${nestRow.cpuUsPerRequest.toFixed(0)} µs → ${times(read.ratioToNest)} (target ≤ ×${TARGETS.readVsNest}) → ${ok(met.readCpu)}`,
        `stored read without the caches, CPU per request at ${uncached.cpuAtRate ?? 'full'} req/s: the api ${uncached.cpuUsPerRequest.toFixed(0)} µs (${uncached.rps.toFixed(0)} req/s, p99 ${uncached.latencyMs.p99.toFixed(1)} ms) vs the minimal Nest app reading the text from Postgres ${nestPgRow.cpuUsPerRequest.toFixed(0)} µs → ${times(uncached.ratioToNestPg)} (target ≤ ×${TARGETS.uncachedVsNestPg}) → ${ok(met.uncachedCpu)}`,
      ],
    };
  } finally {
    for (const close of closers.reverse()) {
      await close().catch((error) => progress(`close failed: ${error.message}`));
    }
  }
}
