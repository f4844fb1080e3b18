import { Module, type DynamicModule } from '@nestjs/common';
import { CoreModule, type CoreOptions } from '#libs/core';
import { MaintenanceProcessor } from './maintenance/maintenance.processor.js';

@Module({})
export class WorkerModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.forRoot(options)],
      providers: [MaintenanceProcessor],
    };
  }
}
