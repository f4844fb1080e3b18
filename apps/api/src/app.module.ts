import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ConfigModule, type AppConfig } from '#libs/config';
import { DatabaseModule } from '#libs/database';
import { DefaultDenyGuard, HttpErrorFilter, createValidationPipe } from '#libs/http';
import { ObservabilityModule, type AppLogger, type Metrics } from '#libs/observability';
import { QueueModule } from '#libs/queue';
import { RedisModule } from '#libs/redis';
import { HealthModule } from './health/health.module.js';
import { MetricsController } from './metrics/metrics.controller.js';

export interface ApiModuleOptions {
  config: AppConfig;
  logger: AppLogger;
  metrics: Metrics;
}

@Module({})
export class AppModule {
  static forRoot({ config, logger, metrics }: ApiModuleOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot(logger, metrics),
        DatabaseModule,
        RedisModule,
        QueueModule.forRoot(),
        HealthModule,
      ],
      controllers: [MetricsController],
      providers: [
        { provide: APP_GUARD, useClass: DefaultDenyGuard },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
      ],
    };
  }
}
