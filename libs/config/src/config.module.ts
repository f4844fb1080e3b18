import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from './app-config.js';
import { loadConfig } from './config.js';

/** Injection token for {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');

@Global()
@Module({})
export class ConfigModule {
  /** Pass a config to use it as is (tests); otherwise the environment is validated once, here. */
  static forRoot(config?: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config ?? loadConfig() }],
      exports: [APP_CONFIG],
    };
  }
}
