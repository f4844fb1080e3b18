import type { AppConfig } from '#libs/config';
import { ReadCache, ReplicaReads } from '#libs/database';
import { MerchantRepository } from '#libs/domain/merchants';
import {
  createHttpApp,
  type NestFastifyApplication,
  registerAccess,
  registerConditionalGets,
} from '#libs/http';
import { type AppLogger, createLogger, Metrics } from '#libs/observability';
import { AppModule } from './app.module.js';
import { registerCorsPreflight } from './common/auth/merchant-cors.js';
import { RequestAccessService } from './common/auth/request-access.service.js';
import { registerKeptAnswers } from './common/kept-answer.hook.js';
import { registerUndeclaredQueryRule } from './common/undeclared-query.hook.js';
import { registerWriteFences } from './common/write-fence.hook.js';
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
  // Who may call each route, then its query against the document, then the kept answers (served to
  // callers already let in), before Nest.
  registerAccess(fastify, log, app.get(RequestAccessService));
  registerUndeclaredQueryRule(fastify, log);
  registerKeptAnswers(fastify, app.get(ReadCache));
  registerWriteFences(fastify, app.get(ReplicaReads), log);
  registerConditionalGets(fastify);
  setUpOpenApi(app, options);
  return { app, logger: log };
}
