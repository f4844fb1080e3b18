import { loadConfig } from '#libs/config';
import { createLogger } from '#libs/observability';
import { defaultMigrationsDir, ensureDatabase, migrate } from './migrator.js';

/** `npm run db:migrate`: creates the database when missing, then applies pending migrations. */
async function main() {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, app: 'migrate' });
  const created = await ensureDatabase(config.database.directUrl);
  const result = await migrate(config.database.directUrl, defaultMigrationsDir());
  logger.info(
    {
      databaseCreated: created,
      applied: result.applied,
      alreadyApplied: result.alreadyApplied.length,
      lockRetries: result.lockRetries,
    },
    result.applied.length ? `applied ${result.applied.length} migration(s)` : 'database is up to date',
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
