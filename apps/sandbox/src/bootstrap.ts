import type { AppConfig } from '#libs/config';
import { createHttpApp, type NestFastifyApplication } from '#libs/http';
import { type AppLogger, createLogger, Metrics } from '#libs/observability';
import { FaultsService } from './core/index.js';
import { SandboxModule } from './sandbox.module.js';

export interface SandboxApp {
  app: NestFastifyApplication;
  logger: AppLogger;
}

export async function createSandboxApp(config: AppConfig, logger?: AppLogger): Promise<SandboxApp> {
  const log = logger ?? createLogger({ level: config.logLevel, app: 'sandbox' });
  const metrics = new Metrics('sandbox');
  const app = await createHttpApp(SandboxModule.forRoot({ config, logger: log, metrics }), {
    logger: log,
    metrics,
    bodyLimitBytes: 1024 * 1024,
  });
  const fastify = app.getHttpAdapter().getInstance();
  // Before routing, so an injected fault can hit any upstream route, even one that would 404.
  fastify.addHook('onRequest', app.get(FaultsService).hook);
  // PATCH /users/{uuid} takes a JSON-patch document (upstream spec §4.4). Form posts (the hosted consent page) are
  // parsed by Nest's Fastify adapter already.
  fastify.addContentTypeParser(
    'application/json-patch+json',
    { parseAs: 'string' },
    fastify.getDefaultJsonParser('error', 'error'),
  );
  return { app, logger: log };
}
