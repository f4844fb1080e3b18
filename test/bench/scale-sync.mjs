// The scale bench's syncs (test/bench/scale.mjs), through the real path as scenarios/sync.mjs takes it
// (with its steps, scenarios/sync-steps.mjs):
// banks connected through the api and the sandbox, their syncs queued and run by worker processes on the
// scale database. At each size, the first sync of a new bank's 6,500-transaction account and then an
// incremental sync of that account (medians of three banks); at the largest size, the same first-sync
// work done by 1, 2, 4… workers sharing the queue; and one dispatch of many due accounts.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { startPrivateRedis } from '../kit/private-services.mjs';
import { BenchFailure } from './bench-failure.mjs';
import { SCHEDULES_OFF, startHeadless, until } from './processes.mjs';
import {
  connectBanks,
  currentAccountFirstSync,
  syncFigures,
  syncNow,
  untilSyncsEnded,
} from './scenarios/sync-steps.mjs';

/** Banks measured at each size. */
const SAMPLES = 3;

/**
 * The queues of `queuePrefix` emptied, and what measures syncs on them: workers started on demand against
 * `sandboxUrl`, banks connected through `apiUrl` as the merchant of `auth`. Stop it to stop the workers.
 */
export async function startScaleSync({ databaseUrl, queuePrefix, sandboxUrl, apiUrl, auth, db, log }) {
  const { ALL_QUEUES } = await import(
    new URL('../../dist/libs/queue/src/job-catalogue.js', import.meta.url).href
  );
  const connection = { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0' };
  const queues = ALL_QUEUES.map((name) => new Queue(name, { connection, prefix: `{${queuePrefix}}` }));
  const syncQueue = queues[ALL_QUEUES.indexOf('sync')];
  // A run stopped midway leaves jobs naming rows of a database dropped since.
  await Promise.all(queues.map((q) => q.obliterate({ force: true })));
  const env = {
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX: queuePrefix,
    UPSTREAM_BASE_URL: sandboxUrl,
    ...SCHEDULES_OFF,
  };
  const workers = [];
  let warm = false;

  /** Exactly `n` worker processes, each consuming the sync queue. */
  const workersOf = async (n) => {
    while (workers.length > n) await workers.pop().stop();
    while (workers.length < n) {
      const name = workers.length === 0 ? 'worker' : `worker-${workers.length + 1}`;
      workers.push(startHeadless(name, 'dist/apps/worker/src/main.js', env));
    }
    await until(
      `${n} worker(s) consuming`,
      async () => {
        const gone = workers.find((w) => w.exited() !== null);
        if (gone) throw new BenchFailure(`${gone.name} exited (${gone.exited()}): ${gone.logs()}`);
        return (await syncQueue.getWorkersCount()) >= n ? true : undefined;
      },
      60_000,
    );
  };

  return {
    /**
     * A new bank's first sync with the tables at `records` (its current account's run, 6,500 rows; the
     * bank's other accounts sync beside it, as with any bank), then an incremental sync of that account.
     */
    async atSize(records) {
      await workersOf(1);
      // A fresh worker's first syncs of each kind (JIT, pools filling) are not the smallest size's cost.
      if (!warm) {
        const users = await connectBanks(apiUrl, auth, 1, 'warm-');
        await untilSyncsEnded(db, workers, users);
        await syncNow(apiUrl, auth, (await currentAccountFirstSync(db, users)).id);
        warm = true;
      }
      const [{ synced }] = (await db.query('SELECT coalesce(sum(inserted), 0)::int AS synced FROM sync_runs'))
        .rows;
      // One bank's syncs vary by a third from one to the next on this shared machine: the median of three.
      const samples = [];
      for (let i = 0; i < SAMPLES; i++) {
        const users = await connectBanks(apiUrl, auth, 1, `size-${records}-${i}-`);
        await untilSyncsEnded(db, workers, users);
        const first = await currentAccountFirstSync(db, users);
        samples.push({ firstMs: Number(first.ms), incremental: await syncNow(apiUrl, auth, first.id) });
      }
      const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
      const incremental = samples.find(
        (s) => s.incremental.ms === median(samples.map((x) => x.incremental.ms)),
      ).incremental;
      const result = {
        // The records the size loaded, and the rows earlier syncs of the bench added.
        storedBefore: records + synced,
        samples: SAMPLES,
        firstSyncMs: median(samples.map((x) => x.firstMs)),
        incrementalMs: incremental.ms,
        incrementalProgress: incremental.run.progress,
      };
      log(
        `${records.toLocaleString('en')} records (${result.storedBefore.toLocaleString('en')} stored): first sync of a 6,500-transaction account ${result.firstSyncMs.toFixed(0)} ms, then an incremental sync of it ${result.incrementalMs} ms (medians of ${SAMPLES} banks; fetched ${incremental.run.progress.fetched}, unchanged ${incremental.run.progress.unchanged})`,
      );
      return result;
    },

    /** `banks` new banks' first syncs done by each count of `counts` workers in turn: rows/s and seconds. */
    async workerCurve(counts, banks) {
      const curve = [];
      for (const [i, n] of counts.entries()) {
        // Held while the banks connect and the workers start: every worker is there for the first job, and
        // the rate is of the syncs, not of connecting banks.
        await syncQueue.pause();
        const users = await connectBanks(apiUrl, auth, banks, `workers-${i}-`);
        await workersOf(n);
        await syncQueue.resume();
        await untilSyncsEnded(db, workers, users, 600_000);
        const figures = await syncFigures(db, users);
        const seconds = Number(figures.ms) / 1000;
        const point = {
          workers: n,
          banks,
          rows: figures.rows,
          seconds,
          rowsPerSecond: figures.rows / seconds,
        };
        curve.push(point);
        log(
          `${n} worker process(es): ${banks} banks' first syncs, ${figures.rows.toLocaleString('en')} rows in ${seconds.toFixed(2)} s = ${point.rowsPerSecond.toFixed(0)} rows/s`,
        );
      }
      return curve;
    },

    /** Stops the workers and leaves nothing in the shared Redis; can be called again. */
    async stop() {
      await workersOf(0).catch(() => undefined);
      await Promise.all(queues.map((q) => q.obliterate({ force: true })));
      await Promise.all(queues.map((q) => q.close()));
      queues.length = 0;
    },
  };
}

/**
 * One dispatch (`npm run sync:dispatch`, its own process) with `due` accounts due at once: the accounts
 * the sizes made, made due, and more without transactions up to `due`. Its jobs go to a private Redis
 * dropped afterwards, so a million jobs never touch the machine's.
 */
export async function dispatchDue(db, databaseUrl, due, { queuePrefix, log }) {
  const redis = await startPrivateRedis();
  try {
    const [{ have }] = (await db.query('SELECT count(*)::int AS have FROM accounts')).rows;
    if (have < due) {
      log(`dispatch: ${(due - have).toLocaleString('en')} more accounts (no transactions)`);
      await db.query(
        `WITH c AS (SELECT id, merchant_id, user_id, row_number() OVER (ORDER BY id) - 1 AS k FROM consents)
         INSERT INTO accounts (id, merchant_id, user_id, consent_id, upstream_account_id, institution_id,
           sync_status, next_sync_at, updated_at)
         SELECT uuid_generate_v7(), c.merchant_id, c.user_id, c.id, 'due-' || g, 'sandbox-redirect', 'SYNCED',
           now(), now()
         FROM generate_series(1, $1) g JOIN c ON c.k = g % (SELECT count(*) FROM consents)`,
        [due - have],
      );
    }
    await db.query(`UPDATE consents SET expires_at = now() + interval '80 days'`);
    await db.query(`UPDATE accounts SET next_sync_at = now() - interval '1 minute'`);
    await db.query('VACUUM ANALYZE accounts');
    await db.query('VACUUM ANALYZE consents');
    log(`dispatch: ${due.toLocaleString('en')} accounts due, one dispatch`);
    // Under /usr/bin/time for the process's peak RSS: flat memory means the same at 10^5 and 10^6 due.
    const child = spawnSync(
      '/usr/bin/time',
      [
        '-f',
        'peak-rss-kib %M',
        process.execPath,
        fileURLToPath(new URL('../../dist/apps/worker/src/cli/sync-dispatch.cli.js', import.meta.url)),
      ],
      {
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          REDIS_URL: redis.url,
          QUEUE_PREFIX: queuePrefix,
          LOG_LEVEL: 'warn',
        },
        encoding: 'utf8',
        maxBuffer: 64 * 2 ** 20,
      },
    );
    if (child.status !== 0) throw new BenchFailure(`sync:dispatch failed: ${child.stderr.slice(-2000)}`);
    const result = JSON.parse(child.stdout.trim().split('\n').at(-1));
    const peakRssMiB = Number(/peak-rss-kib (\d+)/.exec(child.stderr)?.[1]) / 1024;
    log(
      `dispatch: ${result.enqueued.toLocaleString('en')} of ${due.toLocaleString('en')} due accounts enqueued in ${(result.ms / 1000).toFixed(1)} s, peak RSS ${peakRssMiB.toFixed(0)} MiB (target: 10^6 in under 60 s)`,
    );
    return { due, ...result, peakRssMiB };
  } finally {
    await redis.destroy();
  }
}
