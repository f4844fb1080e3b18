import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, type AppConfig } from '#libs/config';
import { DatabaseModule } from '#libs/database';
import { ObservabilityModule, type AppLogger, type Metrics } from '#libs/observability';
import { QueueModule } from '#libs/queue';
import { RedisModule } from '#libs/redis';

export interface CoreOptions {
  config: AppConfig;
  logger: AppLogger;
  metrics: Metrics;
}

/**
 * What every long-running process of the system shares: configuration, logging and metrics, Postgres,
 * Redis and the job queues. Built from values made once in main.ts (or by a test), never from the
 * environment here.
 */
@Module({})
export class CoreModule {
  static forRoot({ config, logger, metrics }: CoreOptions): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot(logger, metrics),
        DatabaseModule,
        RedisModule,
        QueueModule.forRoot(),
      ],
    };
  }
}
