import { DiscoveryService } from '@nestjs/core';
import type { AppConfig } from '#libs/config';
import { applyRuntimeFlags, stopOnSignals, trimHeapWhenIdle } from '#libs/core';
import type { Tracing } from '#libs/observability';
import { ALL_QUEUES, bullmqPrefix } from '#libs/queue';
import { createWorkerApp } from './bootstrap.js';
import { discoverJobProcessors } from './job-handlers.check.js';

/** The worker as a process: started, stopped on signals. main.ts imports this once tracing runs. */
export async function runWorker(config: AppConfig, tracing: Tracing): Promise<void> {
  applyRuntimeFlags({ leanHeap: true });
  const { app, logger } = await createWorkerApp(config);
  stopOnSignals(app, {
    logger,
    // Running jobs get most of the budget to finish; what is left closes connections.
    before: async (deadlineAt, step) => {
      step('handing jobs back');
      const processors = discoverJobProcessors(app.get(DiscoveryService));
      await Promise.all(processors.map((processor) => processor.stop(deadlineAt - 4_000)));
    },
    after: () => tracing.shutdown(),
  });
  await app.init();
  logger.info({ queues: ALL_QUEUES, prefix: bullmqPrefix(config) }, 'worker ready');
  if (config.retiredSettings.length > 0) {
    logger.warn(
      { settings: config.retiredSettings },
      'these settings are no longer read (docs/configuration.md says what replaced each)',
    );
  }
  trimHeapWhenIdle();
}
