import type { AppConfig } from '#libs/config';
import { applyRuntimeFlags, stopOnSignals, trimHeapWhenIdle } from '#libs/core';
import type { Tracing } from '#libs/observability';
import { createApiApp } from './bootstrap.js';

/** The api as a process: built, listening, stopped on signals. main.ts imports this once tracing runs. */
export async function runApi(config: AppConfig, tracing: Tracing): Promise<void> {
  applyRuntimeFlags({ leanHeap: false });
  const { app, logger } = await createApiApp(config);
  // Closing stops accepting (new requests get 503), ends event streams, lets requests in flight finish
  // (those still running 3 s before the deadline are cut).
  stopOnSignals(app, {
    logger,
    after: () => tracing.shutdown(),
    cutInFlight: () => app.getHttpServer().closeAllConnections(),
  });
  await app.listen({ host: config.api.host, port: config.api.port });
  logger.info({ url: config.api.publicUrl, port: config.api.port }, 'api listening');
  trimHeapWhenIdle();
}
