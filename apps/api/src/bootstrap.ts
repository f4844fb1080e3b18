import type { AppConfig } from '#libs/config';
import { MerchantRepository } from '#libs/domain/merchants';
import { createHttpApp, type NestFastifyApplication, registerConditionalGets } from '#libs/http';
import { type AppLogger, createLogger, Metrics } from '#libs/observability';
import { AppModule } from './app.module.js';
import { registerCorsPreflight } from './common/auth/merchant-cors.guard.js';
import { setUpOpenApi } from './system/openapi.js';

export interface ApiApp {
  app: NestFastifyApplication;
  logger: AppLogger;
}

/** Builds the api without listening, so tests and main.ts share exactly one wiring. */
export async function createApiApp(
  config: AppConfig,
  logger?: AppLogger,
  options: { responseSchemas?: boolean } = {},
): Promise<ApiApp> {
  const log = logger ?? createLogger({ level: config.logLevel, app: 'api' });
  const metrics = new Metrics('api');
  const app = await createHttpApp(AppModule.forRoot({ config, logger: log, metrics }), {
    logger: log,
    metrics,
    bodyLimitBytes: config.tuning.apiBodyLimitBytes,
    trustProxy: config.api.trustProxy,
  });
  const fastify = app.getHttpAdapter().getInstance();
  registerCorsPreflight(fastify, () => app.get(MerchantRepository));
  registerConditionalGets(fastify);
  setUpOpenApi(app, options);
  return { app, logger: log };
}
