import { Queue, QueueEvents } from 'bullmq';
import { ConfigValidationError, loadConfig } from '#libs/config';
import { createRedisClient, masterConnectionOptions } from '#libs/redis';
import { JOB_DEFINITIONS } from './job-catalogue.js';
import { bullmqPrefix } from './queue-prefix.js';

/**
 * Exits 0 when a worker consumes a `maintenance.ping` within a few seconds, 1 otherwise. `npm start`
 * polls it to know the worker is really consuming, whatever the log level says.
 */
async function main(): Promise<number> {
  const config = loadConfig();
  const cluster = config.redis.cluster
    ? createRedisClient(config.redis, { maxRetriesPerRequest: null })
    : null;
  const connection = cluster ?? masterConnectionOptions(config.redis, { maxRetriesPerRequest: null });
  const definition = JOB_DEFINITIONS['maintenance.ping'];
  const queue = new Queue(definition.queue, { connection, prefix: bullmqPrefix(config) });
  const events = new QueueEvents(definition.queue, { connection, prefix: bullmqPrefix(config) });
  try {
    await events.waitUntilReady();
    const job = await queue.add('maintenance.ping', { sentAt: new Date().toISOString() }, definition.options);
    await job.waitUntilFinished(events, 3_000);
    return 0;
  } catch {
    return 1;
  } finally {
    await Promise.allSettled([events.close(), queue.close()]);
    cluster?.disconnect();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ConfigValidationError ? error.message : error);
    process.exit(1);
  },
);
