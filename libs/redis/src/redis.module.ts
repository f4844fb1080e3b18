import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { redisOptionsFromUrl } from './redis-options.js';

export const REDIS = Symbol('REDIS');

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
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new Redis({ ...redisOptionsFromUrl(config.redis.url), lazyConnect: false, maxRetriesPerRequest: 2 }),
    },
    RedisCloser,
  ],
  exports: [REDIS],
})
export class RedisModule {}
