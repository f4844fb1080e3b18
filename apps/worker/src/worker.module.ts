import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, type AppConfig } from '#libs/config';
import { DatabaseModule } from '#libs/database';
import { ObservabilityModule, type AppLogger, type Metrics } from '#libs/observability';
import { QueueModule } from '#libs/queue';
import { RedisModule } from '#libs/redis';
import { MaintenanceProcessor } from './maintenance/maintenance.processor.js';

export interface WorkerModuleOptions {
  config: AppConfig;
  logger: AppLogger;
  metrics: Metrics;
}

@Module({})
export class WorkerModule {
  static forRoot({ config, logger, metrics }: WorkerModuleOptions): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot(logger, metrics),
        DatabaseModule,
        RedisModule,
        QueueModule.forRoot(),
      ],
      providers: [MaintenanceProcessor],
    };
  }
}
