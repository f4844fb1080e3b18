import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type AppLogger, LOGGER } from '#libs/observability';
import { closeRedis, logConnectionErrors, REDIS, subscribeWhenReachable } from './redis.tokens.js';
import { duplicateRedisClient, type RedisClient } from './redis-client.js';

/** The users whose event streams have something new, with the newest stream position of each. */
export type EventWakeup = Record<string, string>;

/**
 * Wakes every api process's event streams when the outbox relay has numbered new events. Only a wake-up:
 * the events themselves are read from Postgres, so a message lost while Redis was away costs a delay
 * (streams also look on every heartbeat), never an event.
 */
@Injectable()
export class EventWakeups implements OnApplicationShutdown {
  private readonly channel: string;
  private subscriber: RedisClient | undefined;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    this.channel = `${config.redis.queuePrefix}:events:relayed`;
  }

  async publish(wakeup: EventWakeup): Promise<void> {
    if (Object.keys(wakeup).length === 0) return;
    await this.redis
      .publish(this.channel, JSON.stringify(wakeup))
      .catch((err: unknown) => this.logger.warn({ err }, 'could not publish an event wake-up'));
  }

  async subscribe(listener: (wakeup: EventWakeup) => void): Promise<void> {
    this.subscriber ??= duplicateRedisClient(this.redis);
    logConnectionErrors(this.subscriber, this.logger, 'redis:event-wakeups');
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      try {
        listener(JSON.parse(message) as EventWakeup);
      } catch (err) {
        this.logger.warn({ err }, 'unreadable event wake-up');
      }
    });
    await subscribeWhenReachable(this.subscriber, this.channel);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.subscriber) await closeRedis(this.subscriber, this.logger, 'redis:event-wakeups');
  }
}
