import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_QUEUES } from '#libs/queue';
import { ApiClient, eventually, spawnApi, stackProcessEnv } from './kit/index.js';
import { type PrivateSentinel, startPrivateSentinel } from './kit/private-sentinel.mjs';
import { freePort } from './kit/private-services.mjs';
import { type FailoverStack, failoverUnderTraffic, startFailoverStack } from './kit/redis-failover.js';

/**
 * The stack on Redis Sentinel (one master, one replica, three sentinels), an api and a worker of their own
 * processes, under steady merchant traffic: the master SIGKILLed, then a planned SENTINEL FAILOVER. Each
 * time every client follows the new master with no restart, the window answers only 2xx or 503 with
 * Retry-After, and queues, schedulers, deliveries and streams carry on (failoverUnderTraffic).
 */
describe('Redis Sentinel: the master killed, then failed over by plan, under traffic', () => {
  let sentinel: PrivateSentinel;
  let failover: FailoverStack;

  beforeAll(async () => {
    sentinel = await startPrivateSentinel();
    failover = await startFailoverStack('redis_sentinel', {
      REDIS_SENTINELS: sentinel.sentinels,
      REDIS_SENTINEL_NAME: sentinel.name,
    });
  }, 180_000);
  afterAll(async () => {
    await failover?.close();
    await sentinel?.destroy();
  });

  it('follows a master killed with SIGKILL: writes back within 15 s, no 5xx but 503, nothing stuck', async () => {
    // Everything is on the sentinels' master (BullMQ's own default, 127.0.0.1:6379, would also answer).
    const prefix = failover.stack.api.config.redis.queuePrefix;
    const keys = await sentinel.cli(['--scan', '--pattern', `*${prefix}*`], await sentinel.master());
    expect(keys.split('\n').filter(Boolean).length).toBeGreaterThan(ALL_QUEUES.length);
    const { old } = await failoverUnderTraffic(failover, {
      label: 'redis sentinel, master killed',
      failover: () => sentinel.killMaster(),
      promoted: (killed) => sentinel.promotedFrom(killed),
      clients: () => sentinel.clients(),
    });
    // Back as a replica, for the planned failover to promote.
    await sentinel.restart(old);
  }, 300_000);

  it('starts an api while no sentinel answers: it serves what needs no Redis and says it is not ready', async () => {
    // ioredis's default retried the sentinels inside one connect for ever, holding every command: such an
    // api never got past its boot, where one on an unreachable REDIS_URL serves (api-outages.e2e-spec.ts).
    const nowhere = await freePort();
    const api = await spawnApi(
      stackProcessEnv(failover.stack, {
        REDIS_SENTINELS: `127.0.0.1:${nowhere}`,
        REDIS_SENTINEL_NAME: sentinel.name,
        LOG_LEVEL: 'error',
      }),
    );
    try {
      const client = new ApiClient(api.url, failover.tenant.client.token);
      expect((await client.get('/v1/users?limit=5')).status).toBe(200);
      const ready = await client.get('/health/ready');
      expect(ready.status).toBe(503);
      expect(Number(ready.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(ready.body.error.details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: 'redis' })]),
      );
    } finally {
      await api.stop();
    }
  }, 60_000);

  it('follows a planned SENTINEL FAILOVER the same way, leaving the old master at once', async () => {
    await failoverUnderTraffic(failover, {
      label: 'redis sentinel, planned failover',
      failover: () => sentinel.failover(),
      promoted: (old) => sentinel.promotedFrom(old),
      clients: () => sentinel.clients(),
      // The old master takes writes until the sentinels demote it, 8 to 10 s on, and loses them then: the
      // clients leave it on the sentinels' +switch-master instead (every connection but the sentinels' own
      // and this one's).
      afterPromotion: (old) =>
        eventually(
          'no client left on the old master',
          async () => {
            const clients = (await sentinel.cli(['client', 'list', 'type', 'normal'], old))
              .split('\n')
              .filter((line) => line && !/ name=sentinel-/.test(line) && !/ cmd=client\|list/.test(line));
            return clients.length === 0 ? true : undefined;
          },
          5_000,
        ),
    });
  }, 300_000);
});
