import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeJobSchedules, ALL_QUEUES, JOB_DEFINITIONS } from '#libs/queue';
import {
  accountsWhenSynced,
  ApiClient,
  connect,
  createMerchant,
  EventReceiver,
  eventually,
  onboard,
  send,
  sessionToken,
  spawnApi,
  type Stack,
  startStack,
  tuned,
  uniqueQueuePrefix,
  WAIT,
  type WorkerProcess,
} from './kit/index.js';
import { type PrivateRedisCluster, startPrivateRedisCluster } from './kit/private-services.mjs';
import { SseClient } from './kit/sse-client.js';

/**
 * The whole stack on a real three-master Redis Cluster (REDIS_CLUSTER_NODES): every flow that touches
 * Redis, across an in-process api and worker and an api of its own process, and where the keys land.
 */
describe('Redis Cluster: every flow that touches Redis, on a real three-master cluster', () => {
  let cluster: PrivateRedisCluster;
  let stack: Stack;
  let other: WorkerProcess & { url: string };
  let prefix: string;

  beforeAll(async () => {
    cluster = await startPrivateRedisCluster(3);
    prefix = uniqueQueuePrefix('cluster');
    const overrides = {
      REDIS_CLUSTER_NODES: cluster.nodes,
      // Nothing may fall back to the single Redis: a client that did would fail here.
      REDIS_URL: 'redis://127.0.0.1:1/0',
      QUEUE_PREFIX: prefix,
      ...tuned({
        // Streams look on their own only this often: an event sooner was woken through Redis.
        sseHeartbeatSeconds: 300,
        authCacheSeconds: 300,
        eventDeliveryBackoffSeconds: 1,
        // Two schedulers, so there are some to find (the test kit turns them all off).
        eventsSweepEverySeconds: 5,
        consentReconcileMinutes: 600,
      }),
    };
    stack = await startStack({ ownDatabase: 'redis-cluster', worker: true, overrides });
    other = await spawnApi({
      ...overrides,
      LOG_LEVEL: 'error',
      DATABASE_URL: stack.databaseUrl,
      UPSTREAM_BASE_URL: stack.sandbox.url,
      RATE_LIMIT_PER_MINUTE: '20',
    });
  }, 120_000);
  afterAll(async () => {
    await other?.stop();
    await stack?.close();
    await cluster?.destroy();
  });

  it('keeps the job schedulers in the cluster', async () => {
    const expected = activeJobSchedules(stack.api.config);
    expect(expected.length).toBeGreaterThan(0);
    await eventually('every job scheduler present', async () => {
      for (const schedule of expected) {
        const queue = stack.api.app.get<Queue>(getQueueToken(JOB_DEFINITIONS[schedule.name].queue), {
          strict: false,
        });
        const schedulers = await queue.getJobSchedulers();
        if (!schedulers.some((s) => s.key === schedule.id)) return undefined;
      }
      return true;
    });
  });

  it('syncs a bank, delivers its events to the endpoint and wakes a stream on another process', async () => {
    const tenant = await onboard(stack);
    const receiver = await new EventReceiver().start();
    try {
      expect((await tenant.client.post('/v1/event-endpoints', { url: receiver.url, types: [] })).status).toBe(
        201,
      );
      const token = sessionToken(stack.api.config, {
        merchantId: tenant.merchant.merchant.id,
        userId: tenant.userId,
      });
      const stream = await SseClient.open(`${other.url}/v1/users/${tenant.userId}/events`, token);
      try {
        await connect(stack, tenant);
        const accounts = await accountsWhenSynced(tenant.client, tenant.userId);
        expect(accounts.length).toBeGreaterThan(0);
        // Sync jobs ran through the cluster's queues; their events reach both the endpoint and the stream.
        const [message] = await stream.waitFor(1);
        const delivered = await eventually('an event at the endpoint', () =>
          receiver.accepted().length > 0 ? receiver.accepted() : undefined,
        );
        expect(delivered.map((e) => e.id)).toContain(JSON.parse(message.data).id);
      } finally {
        stream.close();
      }
    } finally {
      await receiver.stop();
    }
  });

  it('limits a merchant across processes with its counter in the cluster', async () => {
    const { merchant, apiKey } = await createMerchant(stack.api);
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () =>
        send(`${other.url}/v1/me`, 'GET', { token: apiKey.key }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    expect(cluster.cli(['get', `${prefix}:rl:m:${merchant.id}`]).trim()).toBe('20');
  });

  it('tells another process of a revoked key through the cluster', async () => {
    const { merchant, apiKey } = await createMerchant(stack.api);
    const elsewhere = new ApiClient(other.url, apiKey.key);
    expect((await elsewhere.get('/v1/me')).status).toBe(200);
    expect(
      (await stack.operator.delete(`/admin/merchants/${merchant.id}/api-keys/${apiKey.id}`)).status,
    ).toBe(204);
    // Cached for 300 s there: only the broadcast can refuse it this soon.
    await eventually(
      'refused on the other process',
      async () => ((await elsewhere.get('/v1/me')).status === 401 ? true : undefined),
      WAIT.revocation,
    );
  });

  it('shows every queue in Bull Board', async () => {
    const response = await send(`${stack.api.url}/admin/queues/api/queues`, 'GET', {
      token: stack.api.config.api.adminToken,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { queues: { name: string }[] };
    expect(body.queues.map((q) => q.name).sort()).toEqual([...ALL_QUEUES].sort());
  });

  it('keeps every BullMQ key of the deployment in one slot, under its hash tag', () => {
    const keys = cluster.ports.flatMap((port) =>
      cluster
        .cli(['--scan', '--pattern', `*${prefix}*`], port)
        .split('\n')
        .filter(Boolean)
        .map((key) => ({ key, port })),
    );
    const queueKeys = keys.filter((k) => k.key.startsWith(`{${prefix}}:`));
    expect(queueKeys.length).toBeGreaterThan(ALL_QUEUES.length);
    expect(new Set(queueKeys.map((k) => k.port)).size).toBe(1);
    // Anything else of ours is a single-key counter (the rate limiter's): no multi-key command needs it.
    for (const { key } of keys.filter((k) => !k.key.startsWith(`{${prefix}}:`)))
      expect(key).toMatch(new RegExp(`^${prefix}:rl:`));
  });
});
