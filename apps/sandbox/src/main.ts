import 'reflect-metadata';
import { ConfigValidationError, loadConfig } from '#libs/config';
import { applyRuntimeFlags, stopOnSignals, trimHeapWhenIdle } from '#libs/core';
import { createSandboxApp } from './bootstrap.js';

async function main() {
  applyRuntimeFlags({ leanHeap: true });
  const config = loadConfig();
  const { app, logger } = await createSandboxApp(config);
  stopOnSignals(app, { logger });
  await app.listen({ host: config.sandbox.host, port: config.sandbox.port });
  logger.info({ url: config.sandbox.publicUrl, port: config.sandbox.port }, 'sandbox listening');
  trimHeapWhenIdle();
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigValidationError ? error.message : error);
  process.exit(1);
});
