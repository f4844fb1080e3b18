import { defaultMigrationsDir, ensureDatabase, migrate } from '#libs/database';

/** Once per test run: the test database exists and is migrated (tests that need a blank one make their own). */
export default async function setup(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url || !new URL(url).pathname.endsWith('_test')) {
    throw new Error(`Refusing to run tests against ${url ?? '(unset)'}: the database name must end in _test`);
  }
  await ensureDatabase(url);
  await migrate(url, defaultMigrationsDir());
}
