import type { RedisQueueBackend } from 'bullmq';

/** What shutdown and the producer need of a BullMQ queue's or worker's main Redis client. */
export interface QueueClient {
  status: string;
  disconnect(): void;
  once(event: 'ready', listener: () => void): unknown;
}

/**
 * The main Redis client of a queue or worker, or undefined if it does not come within `ms` (a
 * connection never made while Redis is down resolves only once Redis is back).
 */
export async function queueClient(
  owner: { backend: RedisQueueBackend },
  ms = 200,
): Promise<QueueClient | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const client = await Promise.race([
    owner.backend.connection.client.then(
      (c) => c as unknown as QueueClient,
      () => undefined,
    ),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    }),
  ]);
  clearTimeout(timer);
  return client;
}
