import type { AppConfig } from '#libs/config';

/**
 * BullMQ's key prefix: QUEUE_PREFIX as a Redis Cluster hash tag (`{bff}`), so every key of every queue
 * lands in one slot and the multi-key scripts BullMQ runs work on a cluster as on a single Redis.
 */
export function bullmqPrefix(config: AppConfig): string {
  return `{${config.redis.queuePrefix}}`;
}
