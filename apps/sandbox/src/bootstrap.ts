import type { AppConfig } from '#libs/config';
import { createHttpApp, type NestFastifyApplication } from '#libs/http';
import { Metrics, createLogger, type AppLogger } from '#libs/observability';
import { SandboxModule } from './sandbox.module.js';

export interface SandboxApp {
  app: NestFastifyApplication;
  logger: AppLogger;
}

export async function createSandboxApp(config: AppConfig, logger?: AppLogger): Promise<SandboxApp> {
  const log = logger ?? createLogger({ level: config.logLevel, app: 'sandbox' });
  const app = await createHttpApp(SandboxModule.forRoot(config), {
    logger: log,
    metrics: new Metrics('sandbox'),
    bodyLimitBytes: 1024 * 1024,
  });
  return { app, logger: log };
}
