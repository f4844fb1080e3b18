import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { tableLocks } from './migration-locks.js';

/**
 * Applies `prisma/migrations/<name>/migration.sql` in name order. Prisma's own `migrate deploy` needs a
 * native engine that cannot be downloaded here, so this runner does the same job with `pg`: it records
 * each migration in Prisma's `_prisma_migrations` table (same columns, same sha256 checksum) so that a
 * machine with the Prisma CLI sees the same history. Unlike Prisma it runs each migration in a
 * transaction, and it holds an advisory lock so any number of processes may call it at once.
 *
 * It migrates under traffic (a rolling upgrade, docs/upgrades.md): each migration first takes
 * every table lock it needs (migration-locks.ts), each within half the server's deadlock_timeout, so a
 * request waiting on it is never the one Postgres aborts in a deadlock; when a lock is not to be had in
 * that time the migration rolls back and tries again a little later, for LOCK_RETRY_MS at most.
 */

/** Arbitrary but fixed: every migrator of this project serialises on it. */
const LOCK_KEY = 72_707_369_011;

const HISTORY_DDL = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
  /** Times a migration gave up waiting for a lock (or met a deadlock) and was run again. */
  lockRetries: number;
}

/** How long a migration keeps trying to take its locks before the deploy fails. */
const LOCK_RETRY_MS = 120_000;
/** Postgres: lock_not_available (a lock_timeout) and deadlock_detected. */
const LOCK_CONFLICTS = new Set(['55P03', '40P01']);

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** `prisma/migrations` of this repository, found from this file whether it runs from source or dist. */
export function defaultMigrationsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'prisma', 'migrations'))) {
    const parent = dirname(dir);
    if (parent === dir)
      throw new MigrationError('prisma/migrations not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return join(dir, 'prisma', 'migrations');
}

export async function readMigrations(dir: string): Promise<Migration[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

export async function migrate(databaseUrl: string, dir: string): Promise<MigrateResult> {
  const migrations = await readMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // A session lock, held across the migrations' transactions: this connection must be Postgres itself
    // (DATABASE_DIRECT_URL), never a transaction pooler's. Unbounded here: a role's statement bound is for
    // requests (docs/operations.md#behind-pgbouncer), and a migration cut short fails the deploy.
    await client.query('SET statement_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(HISTORY_DDL);
    const { rows } = await client.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
    }>('SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL');
    const history = new Map(rows.map((r) => [r.migration_name, r]));
    const result: MigrateResult = { applied: [], alreadyApplied: [], lockRetries: 0 };
    const { rows: deadlock } = await client.query<{ ms: number }>(
      `SELECT setting::int AS ms FROM pg_settings WHERE name = 'deadlock_timeout'`,
    );
    const lockTimeoutMs = Math.max(10, Math.floor(deadlock[0].ms / 2));
    for (const migration of migrations) {
      const done = history.get(migration.name);
      if (done?.finished_at) {
        if (done.checksum !== migration.checksum) {
          throw new MigrationError(
            `Migration ${migration.name} was changed after it was applied. Add a new migration instead of editing an applied one.`,
          );
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      if (done) {
        throw new MigrationError(
          `Migration ${migration.name} started earlier and did not finish; resolve it by hand.`,
        );
      }
      result.lockRetries += await applyUnderTraffic(client, migration, lockTimeoutMs);
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

/**
 * Runs one migration in a transaction that first takes its table locks, in name order, each within
 * `lockTimeoutMs`; the timeout stays on for the migration's own statements, so a lock it did not foresee
 * ends in a retry too. Answers how many times it was retried.
 */
async function applyUnderTraffic(
  client: pg.Client,
  migration: Migration,
  lockTimeoutMs: number,
): Promise<number> {
  const locks = [...tableLocks(migration.sql)].sort(([a], [b]) => a.localeCompare(b));
  const deadline = Date.now() + LOCK_RETRY_MS;
  for (let retries = 0; ; retries += 1) {
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL lock_timeout = ${lockTimeoutMs}`);
      for (const [table, mode] of locks) {
        // Only tables that exist: the migration may be the one creating it.
        const { rows } = await client.query<{ exists: boolean }>(
          'SELECT to_regclass(quote_ident($1)) IS NOT NULL AS exists',
          [table],
        );
        if (rows[0].exists) await client.query(`LOCK TABLE "${table.replaceAll('"', '""')}" IN ${mode} MODE`);
      }
      await client.query(migration.sql);
      await client.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      await client.query('COMMIT');
      return retries;
    } catch (error) {
      await client.query('ROLLBACK');
      const code = (error as { code?: string }).code;
      if (code && LOCK_CONFLICTS.has(code) && Date.now() < deadline) {
        // Backing off lets the transactions it waited for finish; jitter keeps two deploys apart.
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(2_000, 50 * 2 ** retries) * Math.random()),
        );
        continue;
      }
      throw new MigrationError(`Migration ${migration.name} failed: ${(error as Error).message}`);
    }
  }
}

/** Creates the database named in the URL when it is missing; safe to race with another process. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(name)) throw new MigrationError(`Unsupported database name "${name}"`);
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    try {
      await client.query(`CREATE DATABASE "${name}"`);
      return true;
    } catch (error) {
      // Another process created it between our check and our create: 42P04 duplicate_database, or
      // 23505 when both inserts reach pg_database's unique index at the same moment.
      const code = (error as { code?: string }).code;
      if (code === '42P04' || code === '23505') return false;
      throw error;
    }
  } finally {
    await client.end();
  }
}

/** Drops a database; used by tests that build throwaway databases. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(name)) throw new MigrationError(`Unsupported database name "${name}"`);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
