import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type AppLogger, LOGGER } from '#libs/observability';
import { closeRedis, logConnectionErrors, REDIS, subscribeWhenReachable } from './redis.tokens.js';
import { duplicateRedisClient, type RedisClient } from './redis-client.js';

/** A credential, or everything of a subject, that must stop working at once. */
export type Revocation =
  | { kind: 'apiKey'; id: string }
  | { kind: 'user'; id: string }
  | { kind: 'merchant'; id: string }
  | { kind: 'consoleSession'; id: string };

/**
 * Revocations told to every process through Redis pub/sub: the api caches verified credentials for a few
 * seconds, and a revoked API key, an erased user or a disabled merchant must stop working on every api
 * process well within that (the cache's TTL still bounds a message lost while Redis was away).
 */
@Injectable()
export class CredentialRevocations implements OnApplicationShutdown {
  private readonly channel: string;
  private subscriber: RedisClient | undefined;
  private readonly listeners: ((revocation: Revocation) => void)[] = [];

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    // The queue prefix already separates deployments (and test runs) sharing one Redis.
    this.channel = `${config.redis.queuePrefix}:credentials:revoked`;
  }

  /**
   * Tells this process at once (the caller's next request must already see it), then every other one;
   * a failure to publish is logged, not thrown: the revocation itself is already stored.
   */
  async publish(revocation: Revocation): Promise<void> {
    for (const listener of this.listeners) listener(revocation);
    await this.redis
      .publish(this.channel, JSON.stringify(revocation))
      .catch((err: unknown) => this.logger.warn({ err, revocation }, 'could not publish a revocation'));
  }

  /** Calls `listener` for every revocation any process publishes from now on. */
  async subscribe(listener: (revocation: Revocation) => void): Promise<void> {
    this.listeners.push(listener);
    if (this.subscriber) return;
    // One connection and one handler for every listener of this process (the auth cache, the streams).
    const subscriber = duplicateRedisClient(this.redis);
    this.subscriber = subscriber;
    logConnectionErrors(subscriber, this.logger, 'redis:revocations');
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      let revocation: Revocation;
      try {
        revocation = JSON.parse(message) as Revocation;
      } catch (err) {
        this.logger.warn({ err }, 'unreadable revocation message');
        return;
      }
      for (const each of this.listeners) each(revocation);
    });
    await subscribeWhenReachable(subscriber, this.channel);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.subscriber) await closeRedis(this.subscriber, this.logger, 'redis:credential-revocations');
  }
}
