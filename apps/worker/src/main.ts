import 'reflect-metadata';
import { ConfigValidationError, loadConfig } from '#libs/config';
import { applyRuntimeFlags, trimHeapWhenIdle } from '#libs/core';
import { ALL_QUEUES, bullmqPrefix } from '#libs/queue';
import { createWorkerApp } from './bootstrap.js';

async function main() {
  applyRuntimeFlags({ leanHeap: true });
  const config = loadConfig();
  const { app, logger } = await createWorkerApp(config);
  await app.init();
  logger.info({ queues: ALL_QUEUES, prefix: bullmqPrefix(config) }, 'worker ready');
  trimHeapWhenIdle();
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigValidationError ? error.message : error);
  process.exit(1);
});
