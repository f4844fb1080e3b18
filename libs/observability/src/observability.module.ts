import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { AppLogger } from './logger.js';
import { Metrics } from './metrics.js';

export const LOGGER = Symbol('LOGGER');

@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(logger: AppLogger, metrics: Metrics): DynamicModule {
    return {
      module: ObservabilityModule,
      providers: [
        { provide: LOGGER, useValue: logger },
        { provide: Metrics, useValue: metrics },
      ],
      exports: [LOGGER, Metrics],
    };
  }
}
