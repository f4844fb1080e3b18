import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { type AppConfig, ConfigModule } from '#libs/config';
import { type AppLogger, type Metrics, ObservabilityModule } from '#libs/observability';
import { ConsentsModule } from './consents/consents.module.js';
import { createSandboxValidationPipe, SandboxAuthGuard } from './core/index.js';
import { SandboxCoreModule } from './core/sandbox-core.module.js';
import { UpstreamErrorFilter } from './core/upstream-error.filter.js';
import { DataModule } from './data/data.module.js';
import { PaymentsModule } from './payments/payments.module.js';
import { SandboxInfoController } from './sandbox-info.controller.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

export interface SandboxModuleOptions {
  config: AppConfig;
  logger: AppLogger;
  metrics: Metrics;
}

@Module({})
export class SandboxModule {
  static forRoot({ config, logger, metrics }: SandboxModuleOptions): DynamicModule {
    return {
      module: SandboxModule,
      imports: [
        ConfigModule.forRoot(config),
        ObservabilityModule.forRoot(logger, metrics),
        SandboxCoreModule,
        ConsentsModule,
        DataModule,
        PaymentsModule,
        WebhooksModule,
      ],
      controllers: [SandboxInfoController],
      providers: [
        { provide: APP_GUARD, useClass: SandboxAuthGuard },
        { provide: APP_PIPE, useFactory: createSandboxValidationPipe },
        { provide: APP_FILTER, useClass: UpstreamErrorFilter },
      ],
    };
  }
}
