import type { AppConfig } from '#libs/config';
import { applyRuntimeFlags, stopOnSignals, trimHeapWhenIdle } from '#libs/core';
import type { Tracing } from '#libs/observability';
import { createSandboxApp } from './bootstrap.js';

/** The sandbox as a process: built, listening, stopped on signals. main.ts imports this once tracing runs. */
export async function runSandbox(config: AppConfig, tracing: Tracing): Promise<void> {
  applyRuntimeFlags({ leanHeap: true });
  const { app, logger } = await createSandboxApp(config);
  stopOnSignals(app, {
    logger,
    after: () => tracing.shutdown(),
    cutInFlight: () => app.getHttpServer().closeAllConnections(),
  });
  await app.listen({ host: config.sandbox.host, port: config.sandbox.port });
  logger.info({ url: config.sandbox.publicUrl, port: config.sandbox.port }, 'sandbox listening');
  trimHeapWhenIdle();
}
