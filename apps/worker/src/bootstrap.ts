import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AppConfig } from '#libs/config';
import { type AppLogger, createLogger, Metrics, NestPinoLogger } from '#libs/observability';
import { WorkerModule } from './worker.module.js';

export interface WorkerApp {
  app: INestApplicationContext;
  logger: AppLogger;
}

/** The worker is a headless Nest context: BullMQ processors, no HTTP server. */
export async function createWorkerApp(config: AppConfig, logger?: AppLogger): Promise<WorkerApp> {
  const log = logger ?? createLogger({ level: config.logLevel, app: 'worker' });
  const app = await NestFactory.createApplicationContext(
    WorkerModule.forRoot({ config, logger: log, metrics: new Metrics('worker') }),
    { logger: new NestPinoLogger(log) },
  );
  // No Nest shutdown hooks: main.ts stops the worker on signals (stopOnSignals), handing its jobs back
  // first; tests close it themselves.
  return { app, logger: log };
}
