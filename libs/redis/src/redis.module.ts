import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { LOGGER, type AppLogger } from '#libs/observability';

export const REDIS = Symbol('REDIS');

/**
 * Logs connection errors through the JSON logger, at most once per interval per source: ioredis retries
 * forever while Redis is down, and every retry would otherwise print an unhandled-error stack to stderr.
 */
export function logConnectionErrors(
  emitter: { on(event: 'error', listener: (error: Error) => void): unknown },
  logger: AppLogger,
  source: string,
  intervalMs = 10_000,
): void {
  let last = 0;
  emitter.on('error', (error: Error) => {
    const now = Date.now();
    if (now - last < intervalMs) return;
    last = now;
    logger.warn({ source, err: error }, `${source}: connection error (retrying)`);
  });
}

/** Closes the shared client when the app stops, so a process exits without waiting on sockets. */
@Injectable()
class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** One shared ioredis connection for rate limits, caches and health; BullMQ opens its own. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG, LOGGER],
      useFactory: (config: AppConfig, logger: AppLogger) => {
        // ioredis reads redis:// and rediss:// (TLS) URLs itself.
        const redis = new Redis(config.redis.url, { maxRetriesPerRequest: 2 });
        logConnectionErrors(redis, logger, 'redis');
        return redis;
      },
    },
    RedisCloser,
  ],
  exports: [REDIS],
})
export class RedisModule {}
