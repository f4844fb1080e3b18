import { afterAll, beforeAll, describe, it } from 'vitest';
import { eventually } from './kit/index.js';
import { type PrivateRedisCluster, startPrivateRedisCluster } from './kit/private-services.mjs';
import { type FailoverStack, failoverUnderTraffic, startFailoverStack } from './kit/redis-failover.js';

/**
 * The stack on a Redis Cluster of three masters with a replica each, under steady merchant traffic: the
 * master serving the deployment's queues (their one hash slot) SIGKILLed, its replica promoted by the
 * cluster itself, and every client following it with no restart (failoverUnderTraffic).
 */
describe('Redis Cluster with replicas: the queues’ master killed under traffic', () => {
  let cluster: PrivateRedisCluster;
  let failover: FailoverStack;

  beforeAll(async () => {
    cluster = await startPrivateRedisCluster(3, { replicas: 1 });
    failover = await startFailoverStack('redis_cluster_failover', { REDIS_CLUSTER_NODES: cluster.nodes });
  }, 180_000);
  afterAll(async () => {
    await failover?.close();
    await cluster?.destroy();
  });

  it('promotes its replica: writes back within 15 s, no 5xx but 503, nothing stuck', async () => {
    // Every BullMQ key of the deployment is in this one slot (the hash tag of its prefix).
    const queueKey = `{${failover.stack.api.config.redis.queuePrefix}}:any`;
    await failoverUnderTraffic(failover, {
      label: 'redis cluster, queues’ master killed',
      failover: async () => {
        const port = cluster.masterFor(queueKey);
        await cluster.kill(port);
        return port;
      },
      promoted: async (killed) => {
        // Judged failed after cluster-node-timeout (2 s here), then its replica elected.
        await eventually('its replica promoted', () =>
          cluster.masterFor(queueKey) !== killed ? true : undefined,
        );
        await cluster.whenOk();
      },
    });
  }, 300_000);
});
