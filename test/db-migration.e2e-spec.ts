import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Runs scripts/db-migration.mjs as `npm run db:migration` would, against the server of the test database
// (vitest.config.ts guarantees a `*_test` DATABASE_URL). Each run replays the migrations into a fresh shadow
// database, so every case is a real round trip through Prisma's schema engine.

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SCRIPT = join(ROOT, 'scripts', 'db-migration.mjs');
const SHADOW_PREFIX = 'prisma_migrate_shadow_db_';
const RUN_TIMEOUT = 120_000;
const TEST_TIMEOUT = 180_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function runTool(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SCRIPT, ...args],
      { cwd: ROOT, env: process.env, timeout: RUN_TIMEOUT, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        // A run killed by the timeout has no numeric code; report it as a failure the assertions show.
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr: error?.killed ? `${stderr}\n(killed: ${error.signal})` : stderr });
      },
    );
  });
}

async function shadowDatabases(): Promise<string[]> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname',
      [SHADOW_PREFIX],
    );
    return rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

const tempDirs: string[] = [];

/** A private copy of prisma/schema.prisma and prisma/migrations that a case may change freely. */
async function copyPrisma(): Promise<{ dir: string; schema: string; migrations: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'db-migration-'));
  tempDirs.push(dir);
  const schema = join(dir, 'schema.prisma');
  const migrations = join(dir, 'migrations');
  await cp(join(ROOT, 'prisma', 'schema.prisma'), schema);
  await cp(join(ROOT, 'prisma', 'migrations'), migrations, { recursive: true });
  return { dir, schema, migrations };
}

async function migrationNames(migrations: string): Promise<string[]> {
  const entries = await readdir(migrations, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

describe('db:migration (schema.prisma ⇄ prisma/migrations through the wasm schema engine)', () => {
  let shadowsBefore: string[];

  beforeAll(async () => {
    expect(process.env.DATABASE_URL).toMatch(/_test$/);
    shadowsBefore = await shadowDatabases();
  });

  afterAll(async () => {
    await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it(
    '--check passes on the repository: the committed migrations produce schema.prisma',
    async () => {
      const run = await runTool('--check');
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('schema.prisma and prisma/migrations agree');
    },
    TEST_TIMEOUT,
  );

  it(
    '--check fails, naming the column, when a migration lacks a column of the schema',
    async () => {
      const copy = await copyPrisma();
      const names = await migrationNames(copy.migrations);
      const file = join(copy.migrations, names[0], 'migration.sql');
      const sql = await readFile(file, 'utf8');
      // A column line of a CREATE TABLE that is not its last line, so the SQL stays valid without it.
      const nickname = /^\s*"nickname" [^\n]*,\n/m;
      expect(sql).toMatch(nickname);
      await writeFile(file, sql.replace(nickname, ''));

      const check = await runTool('--check', '--schema', copy.schema, '--migrations', copy.migrations);
      expect(check.code).toBe(1);
      expect(check.stderr).toMatch(/ALTER TABLE "accounts" ADD COLUMN\s+"nickname"/);

      const print = await runTool('--print', '--schema', copy.schema, '--migrations', copy.migrations);
      expect(print.code).toBe(0);
      expect(print.stdout).toMatch(/ADD COLUMN\s+"nickname"/);
      expect(await migrationNames(copy.migrations)).toEqual(names);
    },
    TEST_TIMEOUT,
  );

  it(
    'generates the next migration for a schema change, after which --check passes',
    async () => {
      const copy = await copyPrisma();
      const before = await migrationNames(copy.migrations);
      const schema = await readFile(copy.schema, 'utf8');
      const model = /^model Account \{\n/m;
      expect(schema).toMatch(model);
      await writeFile(
        copy.schema,
        schema.replace(
          model,
          (head) => `${head}  migrationProbe String? @map("migration_probe") @db.VarChar(32)\n`,
        ),
      );

      const generate = await runTool(
        'add_migration_probe',
        '--schema',
        copy.schema,
        '--migrations',
        copy.migrations,
      );
      expect(generate.stderr).toBe('');
      expect(generate.code).toBe(0);
      const after = await migrationNames(copy.migrations);
      const added = after.filter((name) => !before.includes(name));
      expect(added).toEqual([expect.stringMatching(/^\d{14}_add_migration_probe$/)]);
      // The runner applies in name order, so the new migration must come last.
      expect(after.at(-1)).toBe(added[0]);
      const sql = await readFile(join(copy.migrations, added[0], 'migration.sql'), 'utf8');
      expect(sql).toMatch(/ALTER TABLE "accounts" ADD COLUMN\s+"migration_probe" VARCHAR\(32\);/);
      expect(generate.stdout).toContain(join(added[0], 'migration.sql'));

      const check = await runTool('--check', '--schema', copy.schema, '--migrations', copy.migrations);
      expect(check.stderr).toBe('');
      expect(check.code).toBe(0);

      const again = await runTool(
        'add_migration_probe',
        '--schema',
        copy.schema,
        '--migrations',
        copy.migrations,
      );
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('agree; nothing to write');
      expect(await migrationNames(copy.migrations)).toEqual(after);
    },
    TEST_TIMEOUT,
  );

  it(
    'reports a migration that does not apply, by name, and rejects bad arguments',
    async () => {
      const copy = await copyPrisma();
      const broken = join(copy.migrations, '99991231235959_broken');
      await cp(join(copy.migrations, (await migrationNames(copy.migrations))[0]), broken, {
        recursive: true,
      });
      await writeFile(join(broken, 'migration.sql'), 'ALTER TABLE "no_such_table" ADD COLUMN "x" INTEGER;\n');

      const run = await runTool('--check', '--schema', copy.schema, '--migrations', copy.migrations);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('99991231235959_broken');
      expect(run.stderr).toContain('no_such_table');

      const badName = await runTool('Add-Column');
      expect(badName.code).toBe(2);
      expect(badName.stderr).toContain('Invalid migration name');

      const help = await runTool('--help');
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('--migrations <dir>');
    },
    TEST_TIMEOUT,
  );

  it('leaves no shadow database behind', async () => {
    const leftovers = (await shadowDatabases()).filter((name) => !shadowsBefore.includes(name));
    expect(leftovers).toEqual([]);
  });
});
