import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedisClient,
  CredentialRevocations,
  logConnectionErrors,
  type RedisClient,
  type Revocation,
} from '#libs/redis';
import { captureLogger, eventually, testConfig, uniqueQueuePrefix } from './kit/index.js';
import { type PrivateRedis, startPrivateRedis } from './kit/private-services.mjs';

/*
 * A process's subscriptions (credential revocations, event wake-ups) outlive Redis going away: they are
 * made again once it is back, by us on every `ready` (ioredis's own re-subscription leaves its promise
 * unhandled, so a connection lost again before its reply failed the process's test run).
 */
describe('subscriptions across Redis restarts', () => {
  let redis: PrivateRedis;
  const clients: RedisClient[] = [];
  const instances: CredentialRevocations[] = [];
  const unhandled: unknown[] = [];
  const note = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    redis = await startPrivateRedis();
    process.on('unhandledRejection', note);
  });
  afterAll(async () => {
    process.off('unhandledRejection', note);
    for (const instance of instances) await instance.onApplicationShutdown();
    for (const client of clients) client.disconnect();
    await redis?.destroy();
  });

  it('hears a revocation published after each restart, and leaves no rejection unhandled', async () => {
    const config = testConfig({ REDIS_URL: redis.url, QUEUE_PREFIX: uniqueQueuePrefix('resubscribe') });
    const { logger } = captureLogger('test', 'fatal');
    const revocations = () => {
      const client = createRedisClient(config.redis, { maxRetriesPerRequest: 1 });
      // As the apps' own client: its refused reconnections logged (here to nowhere), not printed by ioredis.
      logConnectionErrors(client, logger, 'test');
      clients.push(client);
      const instance = new CredentialRevocations(client, config, logger);
      instances.push(instance);
      return instance;
    };
    const listener = revocations();
    const publisher = revocations();
    const heard: Revocation[] = [];
    await listener.subscribe((revocation) => heard.push(revocation));
    for (const round of [1, 2, 3]) {
      await redis.restart();
      const revocation: Revocation = { kind: 'apiKey', id: `after-restart-${round}` };
      // Published again until heard: the listener subscribes again once its connection is ready.
      await eventually(`heard after restart ${round}`, async () => {
        await publisher.publish(revocation);
        return heard.some((r) => r.id === revocation.id) ? true : undefined;
      });
    }
    // Gone while its subscription may be on the way: nothing unhandled, whatever the timing.
    await redis.stop();
    await redis.start();
    await eventually('heard once more', async () => {
      await publisher.publish({ kind: 'apiKey', id: 'last' });
      return heard.some((r) => r.id === 'last') ? true : undefined;
    });
    expect(unhandled).toEqual([]);
  });
});
