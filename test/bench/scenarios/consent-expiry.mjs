// Scenario "consent-expiry": the consent lifecycle's expiry scan over 10,000 consents (rows made here),
// run as the worker runs it (a `consents.scan-expiry` job taken by a worker process): how long the job
// took, against the 10 s target. Half the consents are inside the warning window, a quarter past their
// expiry, a quarter beyond the window. They are of the embedded flow, which is warned but has no bank page
// to re-authorise on: this measures our own scan (its reads, guarded writes and events), not the
// upstream's answers. Its own database: DATABASE_URL's name + `_bench_lifecycle`, dropped and created.
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import pg from 'pg';
import { BenchFailure } from '../bench-failure.mjs';
import { benchDatabaseUrl, startHeadless, until } from '../processes.mjs';

const CONSENTS = 10_000;
const QUEUE_PREFIX = 'bff-bench-lifecycle';
const TARGET_SECONDS = 10;
const dist = (path) => fileURLToPath(new URL(`../../../dist/${path}`, import.meta.url));

export async function consentExpiryBench({ progress }) {
  const databaseUrl = benchDatabaseUrl('lifecycle');
  const env = {
    DATABASE_URL: databaseUrl,
    QUEUE_PREFIX,
    // Nothing here calls the upstream; the worker needs an address all the same.
    UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
    SYNC_DISPATCH_EVERY_SECONDS: '0',
    INSTITUTIONS_REFRESH_MINUTES: '0',
    EVENTS_SWEEP_SECONDS: '0',
    CONSENT_EXPIRY_SCAN_MINUTES: '0',
    CONSENT_RECONCILE_MINUTES: '0',
  };
  const { dropDatabase, ensureDatabase, migrate, defaultMigrationsDir } = await import(
    dist('libs/database/src/migrator.js')
  );
  progress(`database ${new URL(databaseUrl).pathname.slice(1)}: dropped, created, migrated`);
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl, defaultMigrationsDir());
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
  const queue = new Queue('consents', { connection: { url: redisUrl }, prefix: `{${QUEUE_PREFIX}}` });
  await queue.obliterate({ force: true });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const closers = [() => queue.close(), () => db.end()];
  try {
    progress(`${CONSENTS} consents: half expiring within 7 days, a quarter past due, a quarter later`);
    await db.query(
      `WITH m AS (INSERT INTO merchants (id, name, updated_at) VALUES (gen_random_uuid(), 'lifecycle bench', now()) RETURNING id),
            u AS (INSERT INTO users (id, merchant_id, reference, application_user_id, updated_at)
                  SELECT gen_random_uuid(), m.id, 'bench-user', 'bench-user', now() FROM m RETURNING id, merchant_id)
       INSERT INTO consents (id, merchant_id, user_id, kind, flow, upstream_consent_id, institution_id, status, expires_at, updated_at)
       SELECT uuid_generate_v7(), u.merchant_id, u.id, 'ACCOUNT', 'EMBEDDED', 'bench-' || n, 'sandbox-embedded', 'AUTHORIZED',
         CASE WHEN n % 4 < 2 THEN now() + interval '3 days'
              WHEN n % 4 = 2 THEN now() - interval '1 hour'
              ELSE now() + interval '30 days' END,
         now()
       FROM u, generate_series(1, $1) AS n`,
      [CONSENTS],
    );
    await db.query('ANALYZE consents');

    const worker = startHeadless('worker', 'dist/apps/worker/src/main.js', env);
    closers.push(() => worker.stop());
    await until(
      'the worker consuming',
      async () => ((await queue.getWorkersCount()) > 0 ? true : undefined),
      30_000,
    );
    progress('expiry scan: one consents.scan-expiry job');
    const job = await queue.add('consents.scan-expiry', {}, { attempts: 1 });
    const done = await until(
      'the scan finished',
      async () => {
        const state = await job.getState();
        if (state === 'failed')
          throw new BenchFailure(`scan failed: ${(await queue.getJob(job.id)).failedReason}`);
        return state === 'completed' ? queue.getJob(job.id) : undefined;
      },
      120_000,
      50,
    );
    const seconds = (done.finishedOn - done.processedOn) / 1000;
    const result = done.returnvalue;
    const events = Object.fromEntries(
      (await db.query(`SELECT type::text, count(*)::int AS n FROM merchant_events GROUP BY type`)).rows.map(
        (r) => [r.type, r.n],
      ),
    );
    if (events['consent.expiring'] !== CONSENTS / 2 || events['consent.expired'] !== CONSENTS / 4) {
      throw new BenchFailure(`unexpected events after the scan: ${JSON.stringify(events)}`);
    }
    const met = seconds < TARGET_SECONDS;
    return {
      kind: 'consent-expiry',
      name: `consent expiry scan over ${CONSENTS} consents`,
      seconds,
      result,
      events,
      meetsTarget: met,
      notes: [
        `expiry scan of ${CONSENTS} consents: ${seconds.toFixed(2)} s (${(CONSENTS / seconds).toFixed(0)} consents/s): ${result.warned} warned, ${result.expired} expired, each with its event; target < ${TARGET_SECONDS} s → ${met ? 'met' : 'NOT met'}`,
      ],
    };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}
