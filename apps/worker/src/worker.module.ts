import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { CoreModule, type CoreOptions } from '#libs/core';
import { ConsentsModule } from '#libs/domain/consents';
import { ConsentsProcessor } from './consents/consents.processor.js';
import { JobHandlersCheck } from './job-handlers.check.js';
import { MaintenanceProcessor } from './maintenance/maintenance.processor.js';

@Module({})
export class WorkerModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.forRoot(options), DiscoveryModule, ConsentsModule],
      providers: [MaintenanceProcessor, ConsentsProcessor, JobHandlersCheck],
    };
  }
}
