import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDir, dropDatabase, ensureDatabase, migrate } from '#libs/database';
import { compareStructures, structureFromDatabase, structureFromSchema } from './kit/schema-drift.js';

const SCHEMA = join(defaultMigrationsDir(), '..', 'schema.prisma');

/** A blank database of its own on the test server, so the test sees exactly what the migrations build. */
function scratchDatabaseUrl(label: string): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/bff_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}_test`;
  return url.toString();
}

describe('schema drift: prisma/migrations build exactly what schema.prisma declares', () => {
  const created: string[] = [];
  afterAll(async () => {
    for (const url of created) await dropDatabase(url);
  });

  async function migratedStructure(migrationsDir: string) {
    const url = scratchDatabaseUrl('drift');
    created.push(url);
    await ensureDatabase(url);
    await migrate(url, migrationsDir);
    return structureFromDatabase(url);
  }

  it('finds no difference in tables, columns, types, nullability, keys, indexes, foreign keys or enums', async () => {
    const expected = await structureFromSchema(SCHEMA);
    const actual = await migratedStructure(defaultMigrationsDir());
    expect(compareStructures(expected, actual)).toEqual([]);
    // The comparison must have had something to compare.
    expect(expected.tables.size).toBeGreaterThanOrEqual(15);
    expect(expected.indexes.size).toBeGreaterThanOrEqual(20);
  });

  it('fails when a migration loses a column, an index or a NOT NULL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bff-drift-'));
    try {
      await cp(defaultMigrationsDir(), dir, { recursive: true });
      const file = join(dir, '20261121000000_init', 'migration.sql');
      const sql = await readFile(file, 'utf8');
      const broken = sql
        .replace(/^\s*"nickname" VARCHAR\(255\),\n/m, '')
        .replace(/^CREATE INDEX "transactions_account_id_status_date_id_idx".*\n/m, '')
        .replace(/"amount" DECIMAL\(19,4\) NOT NULL,/, '"amount" DECIMAL(19,4),');
      expect(broken).not.toBe(sql);
      await writeFile(file, broken);

      const problems = compareStructures(await structureFromSchema(SCHEMA), await migratedStructure(dir));
      // Exactly the three injected faults, and nothing else.
      expect(problems).toHaveLength(3);
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringContaining('column accounts.nickname: declared, missing'),
          expect.stringContaining('index transactions_account_id_status_date_id_idx: declared'),
          expect.stringMatching(
            /^column account_balances\.amount: schema\.prisma says .*"nullable":false.*"nullable":true/,
          ),
        ]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
