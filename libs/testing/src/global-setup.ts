// A relative import: vitest runs the global setup without the `source` condition that maps `#libs/*` to
// TypeScript, so `#libs/database` would need a build; the migrator imports nothing of ours.
import { randomInt } from 'node:crypto';
import { defaultMigrationsDir, ensureDatabase, migrate } from '../../database/src/migrator.js';

/** Once per test run: the test database exists and is migrated (tests that need a blank one make their own). */
export default async function setup(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url || !new URL(url).pathname.endsWith('_test')) {
    throw new Error(`Refusing to run tests against ${url ?? '(unset)'}: the database name must end in _test`);
  }
  // One seed for the run's random test data (libs/testing/src/test-seed.ts), inherited by every test
  // file's process and printed, so a failure replays with TEST_SEED=<seed>.
  if (!process.env.TEST_SEED) process.env.TEST_SEED = String(randomInt(2 ** 31));
  console.log(`TEST_SEED=${process.env.TEST_SEED} (random test data; set it to replay this run's)`);
  await ensureDatabase(url);
  await migrate(url, defaultMigrationsDir());
}
