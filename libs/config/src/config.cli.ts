import { readFileSync, writeFileSync } from 'node:fs';
import { ConfigValidationError, loadConfig } from './config.js';
import { NodeEnv } from './env.dto.js';
import { renderEnvExample, withSettingsTable } from './env-example.js';

/**
 * Prints the resolved, non-secret settings the quick-start script needs (addresses and ports), so the
 * script shares this library's defaults instead of repeating them. The demo key and, outside
 * production, the operator token are printed because showing them is the point of `npm start`'s banner.
 *
 * `config.cli.js env-example '<json>'` prints `.env.example` instead, the JSON naming what scripts/dev.mjs
 * sets for the local stack; `config.cli.js settings-table <file> '<json>'` rewrites the settings table of
 * docs/configuration.md (`npm run config:example` does both).
 */
try {
  if (process.argv[2] === 'env-example') {
    process.stdout.write(renderEnvExample(JSON.parse(process.argv[3] ?? '{}') as Record<string, string>));
  } else if (process.argv[2] === 'settings-table') {
    const file = process.argv[3];
    const notes = JSON.parse(process.argv[4] ?? '{}') as Record<string, string>;
    writeFileSync(file, withSettingsTable(readFileSync(file, 'utf8'), notes));
  } else {
    const config = loadConfig();
    process.stdout.write(
      JSON.stringify({
        databaseUrl: config.database.url,
        redisUrl: config.redis.url,
        // Either is the operator's to run: the local stack starts only a single Redis.
        redisCluster: config.redis.cluster !== null || config.redis.sentinel !== null,
        queuePrefix: config.redis.queuePrefix,
        apiHost: config.api.host,
        apiPort: config.api.port,
        apiUrl: config.api.publicUrl,
        sandboxHost: config.sandbox.host,
        sandboxPort: config.sandbox.port,
        sandboxUrl: config.sandbox.publicUrl,
        demoMerchantApiKey: config.demoMerchantApiKey,
        operatorToken: config.env === NodeEnv.Production ? null : config.api.adminToken,
        sandboxAdminToken: config.env === NodeEnv.Production ? null : config.sandbox.adminToken,
        sandboxDataDir: config.sandbox.dataDir,
        demoPort: config.demo.port,
        workerMetricsHost: config.metrics.workerHost,
        workerMetricsPort: config.metrics.workerPort,
        demoUrl: config.demo.publicUrl,
      }),
    );
  }
} catch (error) {
  console.error(error instanceof ConfigValidationError ? error.message : error);
  process.exit(1);
}
