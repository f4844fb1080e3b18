import { beforeAll, describe, expect, it } from 'vitest';
import {
  defaultMigrationsDir,
  describeRefusals,
  incompatibleStatements,
  type MigrationSource,
  readMigrations,
  splitStatements,
} from '#libs/database';
import {
  CONTRACT_FIXTURE,
  EXPAND_FIXTURE,
  fixtureMigration as fixture,
  readReleases,
  releaseWindow,
} from './kit/index.js';

// The expand/contract rule of a rolling upgrade (docs/upgrades.md) on this repository's own
// release window, then on fixtures: what it refuses, with which message, and what it lets through.

describe("this release's migrations against the previous release (prisma/releases.json)", () => {
  it('changes no released migration and adds only backward compatible ones', () => {
    const { previous, window, changed } = releaseWindow();
    expect(changed, `migrations of release ${previous.name} changed since: add new ones instead`).toEqual([]);
    const refusals = incompatibleStatements({
      ...releaseWindow(),
      releases: readReleases().map((r) => r.name),
    });
    expect(describeRefusals(refusals), `window: ${window.map((m) => m.name).join(', ') || '(none)'}`).toBe(
      '',
    );
  });

  it('names each release once, by a full commit', () => {
    const releases = readReleases();
    expect(new Set(releases.map((r) => r.name)).size).toBe(releases.length);
    for (const release of releases) expect(release.commit).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('the expand/contract rule', () => {
  let released: MigrationSource[];
  const releases = ['2026-11-29'];
  const judge = (sql: string, name = '99990101000009_case') =>
    incompatibleStatements({ released, window: [{ name, sql }], releases });

  beforeAll(async () => {
    released = await readMigrations(defaultMigrationsDir());
  });

  it('lets an additive migration through: columns, a backfill, indexes, a table, an enum value', () => {
    expect(
      describeRefusals(incompatibleStatements({ released, window: [fixture(EXPAND_FIXTURE)], releases })),
    ).toBe('');
  });

  it('refuses a contraction in the same release, naming the migration, the line, the statement and the rule', () => {
    const message = describeRefusals(
      incompatibleStatements({ released, window: [fixture(CONTRACT_FIXTURE)], releases }),
    );
    expect(message).toBe(
      `${CONTRACT_FIXTURE}/migration.sql:4: ALTER TABLE "users" RENAME COLUMN "reference" TO "external_reference"\n` +
        '  refused: it renames what the previous release reads by its old name (add the new one, contract later)',
    );
  });

  it.each([
    ['DROP TABLE "users"', 'drops what the previous release'],
    ['ALTER TABLE "users" DROP COLUMN "reference"', 'drops what the previous release'],
    [
      'ALTER TABLE "users" ADD COLUMN "note" TEXT, DROP COLUMN "reference"',
      'drops what the previous release',
    ],
    ['ALTER TABLE "transactions" DROP CONSTRAINT "transactions_account_id_fkey"', 'drops what the previous'],
    ['DROP TYPE "merchant_event_type"', 'drops what the previous release'],
    ['ALTER TABLE "users" RENAME TO "people"', 'renames what the previous release reads'],
    ["ALTER TYPE \"merchant_event_type\" RENAME VALUE 'sync.failed' TO 'sync.broken'", 'renames what'],
    ['ALTER INDEX "users_merchant_id_reference_key" RENAME TO "users_ref"', 'renames what'],
    ['ALTER TABLE "users" ALTER COLUMN "reference" TYPE VARCHAR(64)', "changes a column's type"],
    ['ALTER TABLE "users" ALTER COLUMN "reference" SET DATA TYPE TEXT', "changes a column's type"],
    ['ALTER TABLE "consents" ALTER COLUMN "redirect_url" SET NOT NULL', 'makes an existing column NOT NULL'],
    ['ALTER TABLE "users" ADD COLUMN "tier" TEXT NOT NULL', 'adds a NOT NULL column without a DEFAULT'],
    ['ALTER TABLE "users" ALTER COLUMN "created_at" DROP DEFAULT', 'drops a default'],
    [
      'ALTER TABLE "users" ADD CONSTRAINT "users_reference_short" CHECK (length("reference") < 64) NOT VALID',
      'adds a constraint over existing columns',
    ],
    ['ALTER TABLE "users" ADD CONSTRAINT "users_ref_key" UNIQUE ("reference")', 'adds a constraint over'],
    ['CREATE UNIQUE INDEX "users_reference_key" ON "users"("reference")', 'adds a unique index'],
    ['DROP INDEX "users_merchant_id_reference_key"', 'drops a unique index'],
    ['DELETE FROM "users" WHERE "reference" LIKE \'test-%\'', 'deletes rows'],
    ['TRUNCATE "merchant_events"', 'deletes rows'],
    [
      'CREATE OR REPLACE FUNCTION bff_read_cache_notify() RETURNS trigger AS $$ BEGIN RETURN NULL; END $$ LANGUAGE plpgsql',
      'replaces a function',
    ],
    [
      'CREATE TRIGGER "users_refuse" BEFORE INSERT ON "users" FOR EACH ROW EXECUTE FUNCTION refuse()',
      'adds a BEFORE or INSTEAD OF trigger',
    ],
    ["DO $$ BEGIN EXECUTE 'DROP TABLE users'; END $$", 'not recognised as backward compatible'],
  ])('refuses %s', (sql, rule) => {
    const refusals = judge(`-- A case.\n${sql};\n`);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ line: 2, statement: sql });
    expect(refusals[0].rule).toContain(rule);
  });

  it.each([
    'ALTER TABLE "users" ADD COLUMN "tier" TEXT NOT NULL DEFAULT \'a\'',
    'ALTER TABLE "consents" ALTER COLUMN "institution_id" DROP NOT NULL',
    'DROP INDEX "accounts_last_synced_at_merchant_id_idx"',
    'CREATE TRIGGER "users_audit" AFTER UPDATE ON "users" FOR EACH ROW EXECUTE FUNCTION audit()',
    'COMMENT ON COLUMN "users"."reference" IS \'the merchant\'\'s own; never renamed\'',
  ])('allows %s', (sql) => {
    expect(describeRefusals(judge(`${sql};`))).toBe('');
  });

  it('allows a column added and then constrained, made NOT NULL or dropped within the same window', () => {
    const sql = `ALTER TABLE "users" ADD COLUMN "tier" TEXT;
      ALTER TABLE "users" ADD CONSTRAINT "users_tier_check" CHECK ("tier" IN ('a', 'b'));
      ALTER TABLE "users" ALTER COLUMN "tier" SET NOT NULL;
      ALTER TABLE "users" DROP COLUMN "tier";`;
    expect(describeRefusals(judge(sql))).toBe('');
  });

  it('allows a contract step marked with a release already made, and says why it refuses one that is not', () => {
    const marked = (release: string) =>
      `-- contract(${release}): no code since ${release} reads "users"."nickname"\nALTER TABLE "users" DROP COLUMN "nickname";`;
    expect(describeRefusals(judge(marked('2026-11-29')))).toBe('');
    const refused = judge(marked('2027-01-01'));
    expect(refused).toHaveLength(1);
    expect(refused[0].rule).toContain('2027-01-01 is not a release in prisma/releases.json');
    // A mark belongs to the statement right after it, not to every later one.
    const twice = `${marked('2026-11-29')}\nALTER TABLE "users" DROP COLUMN "reference";`;
    expect(judge(twice).map((r) => r.statement)).toEqual(['ALTER TABLE "users" DROP COLUMN "reference"']);
  });

  it('splits statements only outside quotes, dollar quotes and comments', () => {
    const sql = `CREATE FUNCTION f() RETURNS trigger AS $body$ BEGIN PERFORM 1; RETURN NULL; END $body$ LANGUAGE plpgsql;
-- a comment; with a semicolon
COMMENT ON TABLE "users" IS 'it''s; fine'; /* block; comment */ SELECT ";";`;
    expect(splitStatements(sql).map((s) => [s.line, s.text.slice(0, 20)])).toEqual([
      [1, 'CREATE FUNCTION f() '],
      [3, 'COMMENT ON TABLE "us'],
      [3, 'SELECT ";"'],
    ]);
  });
});
