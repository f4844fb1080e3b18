import type { AppConfig } from '#libs/config';
import {
  applyRuntimeFlags,
  CUT_IN_FLIGHT_BEFORE_DEADLINE_MS,
  stopOnSignals,
  trimHeapWhenIdle,
} from '#libs/core';
import { requestsAnsweredBy } from '#libs/http';
import type { Tracing } from '#libs/observability';
import { UpstreamReceiverRegistrar } from './admin/upstream-receiver.registrar.js';
import { createApiApp } from './bootstrap.js';
import { HeldIdempotencyClaims } from './common/idempotency/held-idempotency-claims.js';
import { UserEventStreams } from './events/user-event-streams.js';

/** The api as a process: built, listening, stopped on signals. main.ts imports this once tracing runs. */
export async function runApi(config: AppConfig, tracing: Tracing): Promise<void> {
  applyRuntimeFlags({ leanHeap: false });
  const { app, logger } = await createApiApp(config);
  // The server closes before Nest's hooks run: new requests get 503, event streams end, and requests in
  // flight finish (those still running 3 s before the deadline are cut) before any hook touches what they
  // use; Nest's own order would disconnect Prisma first, under a request still writing through it.
  stopOnSignals(app, {
    logger,
    before: async (deadlineAt, step) => {
      step('ending event streams');
      app.get(UserEventStreams).endAll();
      // The start-up registration of our webhook receiver finishes alongside the requests, as they would.
      const registered = app
        .get(UpstreamReceiverRegistrar)
        .finishBy(deadlineAt - CUT_IN_FLIGHT_BEFORE_DEADLINE_MS);
      step('finishing requests in flight');
      await app.getHttpAdapter().close();
      step('finishing the start-up webhook registration');
      await registered;
      step('releasing the idempotency claims of requests cut');
      await app.get(HeldIdempotencyClaims).releaseAll();
    },
    after: () => tracing.shutdown(),
    cutInFlight: () => app.getHttpServer().closeAllConnections(),
  });
  await app.listen({ host: config.api.host, port: config.api.port });
  logger.info({ url: config.api.publicUrl, port: config.api.port }, 'api listening');
  if (config.retiredSettings.length > 0) {
    logger.warn(
      { settings: config.retiredSettings },
      'these settings are no longer read (docs/configuration.md says what replaced each)',
    );
  }
  // Idle only while it answers nothing but its probes: under 1% busy may still be a light load
  // (IDLE_UTILISATION in libs/core).
  trimHeapWhenIdle({ workDone: () => requestsAnsweredBy(app) });
}
