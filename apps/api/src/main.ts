import 'reflect-metadata';
import { ConfigValidationError, loadConfig } from '#libs/config';
import { applyRuntimeFlags, stopOnSignals, trimHeapWhenIdle } from '#libs/core';
import { createApiApp } from './bootstrap.js';

async function main() {
  applyRuntimeFlags({ leanHeap: false });
  const config = loadConfig();
  const { app, logger } = await createApiApp(config);
  // Closing stops accepting (new requests get 503), ends event streams, lets requests in flight finish.
  stopOnSignals(app, { logger });
  await app.listen({ host: config.api.host, port: config.api.port });
  logger.info({ url: config.api.publicUrl, port: config.api.port }, 'api listening');
  trimHeapWhenIdle();
}

main().catch((error: unknown) => {
  // Config errors name the bad settings; print them plainly rather than as a stack.
  console.error(error instanceof ConfigValidationError ? error.message : error);
  process.exit(1);
});
