// A bench scenario's own store: its database (named after DATABASE_URL's, recreated and migrated) and its
// queues, emptied so no earlier run's rows or jobs count. Plain Node ESM, as the rest of test/bench.
import { Queue } from 'bullmq';
import pg from 'pg';

/** A database of the bench's own: DATABASE_URL's name plus `_bench_<suffix>`. */
export function benchDatabaseUrl(suffix) {
  const url = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bff');
  url.pathname = `${url.pathname.replace(/^\//, '') || 'bff'}_bench_${suffix}`;
  return url.toString();
}

/**
 * Makes the bench database at `databaseUrl` anew: dropped, created and migrated (needs a build). Answers a
 * function that drops it, for a scenario that cleans up after itself.
 */
export async function recreateDatabase(databaseUrl, log) {
  const { dropDatabase, ensureDatabase, migrate, defaultMigrationsDir } = await import(
    new URL('../../dist/libs/database/src/migrator.js', import.meta.url).href
  );
  log(`database ${new URL(databaseUrl).pathname.slice(1)}: dropped, created, migrated`);
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
  await migrate(databaseUrl, defaultMigrationsDir());
  return () => dropDatabase(databaseUrl);
}

/**
 * A scenario's own store, emptied so that no earlier run's rows or jobs count: the database recreated
 * (recreateDatabase), the named queues under `queuePrefix` obliterated, and a Postgres client on it.
 * `queue` is the first queue; `closers` closes the queues and the client, and a scenario pushes its own.
 */
export async function freshStore(databaseUrl, queuePrefix, queueNames, log) {
  await recreateDatabase(databaseUrl, log);
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0';
  const queues = queueNames.map(
    (name) => new Queue(name, { connection: { url: redisUrl }, prefix: `{${queuePrefix}}` }),
  );
  for (const queue of queues) await queue.obliterate({ force: true });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const closers = [...queues.map((q) => () => q.close()), () => db.end()];
  return { queue: queues[0], queues, db, closers };
}

/**
 * `count` accounts of `consent` whose next sync was due a minute ago, so one dispatch enqueues them all;
 * analysed afterwards, so the dispatcher's query plans for the table as it now is, not as it was empty.
 */
export async function insertDueAccounts(db, consent, count, idPrefix) {
  await db.query(
    `INSERT INTO accounts (id, merchant_id, user_id, consent_id, upstream_account_id, institution_id, next_sync_at, updated_at)
     SELECT gen_random_uuid(), $1, $2, $3, $4::text || n, 'sandbox-redirect', now() - interval '1 minute', now()
     FROM generate_series(1, ${count}) AS n`,
    [consent.merchant_id, consent.user_id, consent.id, idPrefix],
  );
  await db.query('ANALYZE accounts');
}
