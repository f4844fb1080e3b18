import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { CoreModule, type CoreOptions } from '#libs/core';
import { DefaultDenyGuard, HttpErrorFilter, createValidationPipe } from '#libs/http';
import { HealthModule } from './health/health.module.js';
import { MetricsController } from './metrics/metrics.controller.js';

@Module({})
export class AppModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [CoreModule.forRoot(options), HealthModule],
      controllers: [MetricsController],
      providers: [
        { provide: APP_GUARD, useClass: DefaultDenyGuard },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
      ],
    };
  }
}
