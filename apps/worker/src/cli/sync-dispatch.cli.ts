import 'reflect-metadata';
import { type DynamicModule, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigValidationError, loadConfig } from '#libs/config';
import { CoreModule, type CoreOptions } from '#libs/core';
import { SyncDispatcherService, SyncModule } from '#libs/domain/sync';
import { createLogger, Metrics, NestPinoLogger } from '#libs/observability';

/** The sync engine without any processor: this process enqueues, the workers consume. */
@Module({})
class DispatchModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return { module: DispatchModule, imports: [CoreModule.forRoot(options), SyncModule] };
  }
}

/**
 * One dispatch now (`npm run sync:dispatch`): every account due is enqueued, as the scheduled dispatcher
 * would on its next round. Prints `{ enqueued, resumed, ms, cpuMs }` (cpuMs: this process's CPU time for
 * the dispatch, its start-up apart).
 */
async function main() {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, app: 'sync-dispatch' });
  const app = await NestFactory.createApplicationContext(
    DispatchModule.forRoot({ config, logger, metrics: new Metrics('sync-dispatch') }),
    { logger: new NestPinoLogger(logger) },
  );
  try {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await app.get(SyncDispatcherService).dispatch();
    const used = process.cpuUsage(cpu);
    console.log(
      JSON.stringify({
        ...result,
        ms: Math.round(performance.now() - started),
        cpuMs: Math.round((used.user + used.system) / 1000),
      }),
    );
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigValidationError ? error.message : error);
  process.exit(1);
});
