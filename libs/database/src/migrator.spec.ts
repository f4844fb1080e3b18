import { appendFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '#libs/testing';
import {
  defaultMigrationsDir,
  dropDatabase,
  ensureDatabase,
  migrate,
  MigrationError,
  readMigrations,
} from './migrator.js';

const created: string[] = [];
async function blankDatabase(label: string): Promise<string> {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/bff_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}_test`;
  created.push(url.toString());
  await ensureDatabase(url.toString());
  return url.toString();
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  for (const url of created) await dropDatabase(url);
});

describe('migrate', () => {
  it('applies every migration once, even when several processes run it at the same time', async () => {
    const url = await blankDatabase('mig');
    const all = (await readMigrations(defaultMigrationsDir())).map((m) => m.name);
    expect(all[0]).toBe('20261121000000_init');
    const results = await Promise.all(Array.from({ length: 4 }, () => migrate(url, defaultMigrationsDir())));
    expect(results.flatMap((r) => r.applied)).toEqual(all);
    const history = await query<{ migration_name: string; checksum: string }>(
      url,
      'SELECT migration_name, checksum FROM "_prisma_migrations"',
    );
    expect(history).toHaveLength(all.length);
    for (const row of history) expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect((await migrate(url, defaultMigrationsDir())).alreadyApplied).toEqual(all);
  });

  it('rolls a failing migration back whole and reports which one failed', async () => {
    const url = await blankDatabase('migfail');
    const dir = await mkdtemp(join(tmpdir(), 'bff-mig-'));
    try {
      await cp(defaultMigrationsDir(), dir, { recursive: true });
      await mkdir(join(dir, '29991231000000_broken'));
      await writeFile(
        join(dir, '29991231000000_broken', 'migration.sql'),
        'CREATE TABLE half_done (id int);\nSELECT no_such_function();\n',
      );
      await expect(migrate(url, dir)).rejects.toThrow(/29991231000000_broken failed/);
      // The migrations before it stay applied, nothing of the broken one remains, and it can be retried.
      const tables = await query<{ tablename: string }>(
        url,
        "SELECT tablename FROM pg_tables WHERE tablename IN ('half_done', 'merchants')",
      );
      expect(tables.map((t) => t.tablename)).toEqual(['merchants']);
      const history = await query<{ migration_name: string }>(
        url,
        'SELECT migration_name FROM "_prisma_migrations"',
      );
      expect(history.map((h) => h.migration_name).sort()).toEqual(
        (await readMigrations(defaultMigrationsDir())).map((m) => m.name),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to continue when an applied migration was edited afterwards', async () => {
    const url = await blankDatabase('migedit');
    const dir = await mkdtemp(join(tmpdir(), 'bff-mig-'));
    try {
      await cp(defaultMigrationsDir(), dir, { recursive: true });
      await migrate(url, dir);
      await appendFile(join(dir, '20261121000000_init', 'migration.sql'), '\n-- edited\n');
      const failure = migrate(url, dir);
      await expect(failure).rejects.toBeInstanceOf(MigrationError);
      await expect(migrate(url, dir)).rejects.toThrow(/was changed after it was applied/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('gives way to a request holding a lock it needs: it retries, and the request never deadlocks', async () => {
    const url = await blankDatabase('miglock');
    const dir = await mkdtemp(join(tmpdir(), 'bff-mig-'));
    const request = new pg.Client({ connectionString: url });
    const holder = new pg.Client({ connectionString: url });
    const waiting = async () =>
      (
        await query<{ n: number }>(
          url,
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
        )
      )[0].n;
    try {
      const write = async (name: string, sql: string) => {
        await mkdir(join(dir, name));
        await writeFile(join(dir, name, 'migration.sql'), sql);
      };
      await write('1_tables', 'CREATE TABLE a (id int); CREATE TABLE b (id int); CREATE TABLE c (id int);');
      await migrate(url, dir);
      await write('2_expand', ['a', 'c', 'b'].map((t) => `ALTER TABLE ${t} ADD COLUMN y int;`).join('\n'));
      // A request that wrote "b" and will read "a", as a consent insert checks its user; and a reader of
      // "c" that keeps a migration run statement by statement holding "a" until the request waits for it.
      await request.connect();
      await request.query('BEGIN');
      await request.query('INSERT INTO b VALUES (1)');
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT * FROM c');
      const migrating = migrate(url, dir);
      await eventually('the migration waiting for a lock', async () =>
        (await waiting()) > 0 ? true : undefined,
      );
      let settled = false;
      const read = request.query('SELECT * FROM a').finally(() => (settled = true));
      await eventually('the request waiting for "a", or done', async () =>
        settled || (await waiting()) > 1 ? true : undefined,
      );
      // Released, "c" lets such a migration go on to "b" while the request waits for its "a": a deadlock,
      // which Postgres breaks by aborting the side that waited first, the request. Holding every lock from
      // its start, within half the deadlock check, the migration never waits while holding one so.
      await holder.query('COMMIT');
      await read;
      await request.query('COMMIT');
      const result = await migrating;
      expect(result.applied).toEqual(['2_expand']);
      expect(result.lockRetries).toBeGreaterThan(0);
    } finally {
      await request.end();
      await holder.end();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('creates a missing database once, even when asked concurrently', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/bff_create_${process.pid}_${Math.random().toString(36).slice(2, 8)}_test`;
    created.push(url.toString());
    const results = await Promise.all(Array.from({ length: 3 }, () => ensureDatabase(url.toString())));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
