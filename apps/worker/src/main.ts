import 'reflect-metadata';
import { DiscoveryService } from '@nestjs/core';
import { ConfigValidationError, loadConfig } from '#libs/config';
import { applyRuntimeFlags, stopOnSignals, trimHeapWhenIdle } from '#libs/core';
import { ALL_QUEUES, bullmqPrefix } from '#libs/queue';
import { createWorkerApp } from './bootstrap.js';
import { discoverJobProcessors } from './job-handlers.check.js';

async function main() {
  applyRuntimeFlags({ leanHeap: true });
  const config = loadConfig();
  const { app, logger } = await createWorkerApp(config);
  stopOnSignals(app, {
    logger,
    // Running jobs get most of the budget to finish; what is left closes connections.
    before: async (deadlineAt, step) => {
      step('handing jobs back');
      const processors = discoverJobProcessors(app.get(DiscoveryService));
      await Promise.all(processors.map((processor) => processor.stop(deadlineAt - 4_000)));
    },
  });
  await app.init();
  logger.info({ queues: ALL_QUEUES, prefix: bullmqPrefix(config) }, 'worker ready');
  trimHeapWhenIdle();
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigValidationError ? error.message : error);
  process.exit(1);
});
