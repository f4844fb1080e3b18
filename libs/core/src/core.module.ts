import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig, ConfigModule } from '#libs/config';
import { DatabaseModule } from '#libs/database';
import { type AppLogger, LOGGER, Metrics, ObservabilityModule } from '#libs/observability';
import { QueueModule } from '#libs/queue';
import { RedisModule } from '#libs/redis';
import { ClockModule } from '#libs/time';
import { createUpstreamClient, UPSTREAM_CLIENT, type UpstreamClient } from '#libs/upstream-client';
import { within } from './graceful-shutdown.js';

export interface CoreOptions {
  config: AppConfig;
  logger: AppLogger;
  metrics: Metrics;
}

/** Closes the upstream connection pool when the app stops, so the process does not wait on sockets. */
@Injectable()
class UpstreamClientCloser implements OnApplicationShutdown {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly client: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    // Closing waits for calls in flight (a job given back to the queue may still be in one): bounded.
    const closed = await within(this.client.close(), 2_000, () => undefined);
    if (!closed.done) this.logger.warn('upstream connections did not close within 2000 ms; left to exit');
  }
}

/** The one upstream client of the process: one keep-alive pool and one set of circuit breakers. */
@Global()
@Module({
  providers: [
    {
      provide: UPSTREAM_CLIENT,
      inject: [APP_CONFIG, LOGGER, Metrics],
      useFactory: (config: AppConfig, logger: AppLogger, metrics: Metrics) =>
        createUpstreamClient(config, { logger, registry: metrics.registry }),
    },
    UpstreamClientCloser,
  ],
  exports: [UPSTREAM_CLIENT],
})
class UpstreamClientModule {}

/**
 * What every long-running process of the system shares: configuration, logging and metrics, Postgres,
 * Redis, the job queues and the upstream client. Built from values made once in main.ts (or by a
 * test), never from the environment here.
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
        UpstreamClientModule,
        ClockModule,
      ],
    };
  }
}
