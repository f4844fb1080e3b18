import { Cluster, Redis } from 'ioredis';
import type { AppConfig } from '#libs/config';

/** A single Redis or a Redis Cluster: the same commands, pub/sub and scripts for everything here. */
export type RedisClient = Redis | Cluster;

/**
 * A client on the configured Redis: REDIS_CLUSTER_NODES when set, else REDIS_URL. `maxRetriesPerRequest`
 * is per use: null for BullMQ (its blocking commands must wait out an outage), a small number elsewhere
 * so a request fails fast with 503 instead of hanging.
 */
export function createRedisClient(
  config: AppConfig['redis'],
  options: { maxRetriesPerRequest: number | null },
): RedisClient {
  const cluster = config.cluster;
  if (!cluster) return new Redis(config.url, { maxRetriesPerRequest: options.maxRetriesPerRequest });
  return new Cluster(cluster.nodes, {
    redisOptions: {
      maxRetriesPerRequest: options.maxRetriesPerRequest,
      ...(cluster.password ? { password: cluster.password } : {}),
      ...(cluster.username ? { username: cluster.username } : {}),
      ...(cluster.tls ? { tls: {} } : {}),
    },
  });
}

/** A second client like `client` (for SUBSCRIBE, which takes a connection over). */
export function duplicateRedisClient(client: RedisClient): RedisClient {
  return client instanceof Cluster ? client.duplicate() : client.duplicate();
}
