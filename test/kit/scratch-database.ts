import { defaultMigrationsDir, dropDatabase, ensureDatabase, migrate } from '#libs/database';

/**
 * A migrated database of its own, for tests whose subject acts on every row of the database (the sync
 * dispatcher): test files share one database and run in parallel, so such a test must not see theirs.
 */
export async function scratchDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/bff_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}_test`;
  await ensureDatabase(url.toString());
  await migrate(url.toString(), defaultMigrationsDir());
  return { url: url.toString(), drop: () => dropDatabase(url.toString()) };
}
