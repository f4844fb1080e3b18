import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule, type AppConfig } from '#libs/config';
import { SandboxInfoController } from './sandbox-info.controller.js';
import { UpstreamErrorFilter } from './upstream-error.filter.js';

@Module({})
export class SandboxModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: SandboxModule,
      imports: [ConfigModule.forRoot(config)],
      controllers: [SandboxInfoController],
      providers: [{ provide: APP_FILTER, useClass: UpstreamErrorFilter }],
    };
  }
}
