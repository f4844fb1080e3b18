import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type AppLogger, LOGGER } from '#libs/observability';
import { CredentialRevocations } from './credential-revocations.js';
import { EventWakeups } from './event-wakeups.js';
import { closeRedis, logConnectionErrors, REDIS } from './redis.tokens.js';
import { createRedisClient, type RedisClient } from './redis-client.js';

/** Closes the shared client when the app stops, so a process exits without waiting on sockets. */
@Injectable()
class RedisCloser implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await closeRedis(this.redis, this.logger, 'redis');
  }
}

/** One shared ioredis connection (or cluster client) for rate limits, caches and health; BullMQ opens its own. */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG, LOGGER],
      useFactory: (config: AppConfig, logger: AppLogger) => {
        const redis = createRedisClient(config.redis, { maxRetriesPerRequest: 2 });
        logConnectionErrors(redis, logger, 'redis');
        return redis;
      },
    },
    RedisCloser,
    CredentialRevocations,
    EventWakeups,
  ],
  exports: [REDIS, CredentialRevocations, EventWakeups],
})
export class RedisModule {}
