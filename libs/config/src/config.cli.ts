import { ConfigValidationError, loadConfig } from './config.js';

/**
 * Prints the resolved, non-secret settings the quick-start script needs (addresses and ports), so the
 * script shares this library's defaults instead of repeating them. The demo key is printed because
 * showing it is the point of `npm start`; it is empty in production.
 */
try {
  const config = loadConfig();
  process.stdout.write(
    JSON.stringify({
      databaseUrl: config.database.url,
      redisUrl: config.redis.url,
      queuePrefix: config.redis.queuePrefix,
      apiHost: config.api.host,
      apiPort: config.api.port,
      apiUrl: config.api.publicUrl,
      sandboxHost: config.sandbox.host,
      sandboxPort: config.sandbox.port,
      sandboxUrl: config.sandbox.publicUrl,
      demoMerchantApiKey: config.demoMerchantApiKey,
    }),
  );
} catch (error) {
  console.error(error instanceof ConfigValidationError ? error.message : error);
  process.exit(1);
}
