import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullmqPrefix, QueueName } from '#libs/queue';
import {
  eventually,
  spawnSandbox,
  spawnWorker,
  testConfig,
  tuned,
  uniqueQueuePrefix,
  type WorkerProcess,
} from './kit/index.js';
import { freePort, type PrivateRedis, startPrivateRedis } from './kit/private-services.mjs';

/**
 * A worker that comes up before its upstream listens (docker without depends_on, a cold `npm start` of
 * old, an upstream restarting): the institutions refresh it runs at once must end COMPLETED once the
 * upstream is there, and the upstream's circuit breaker must not open meanwhile (an open breaker would
 * refuse the first merchant's calls for 30 s).
 */
describe('a worker started before its upstream', () => {
  const prefix = uniqueQueuePrefix('start-order');
  let redis: PrivateRedis;
  let worker: WorkerProcess | undefined;
  let sandbox: WorkerProcess | undefined;
  let queue: Queue;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    queue = new Queue(QueueName.Maintenance, {
      connection: { url: redis.url },
      prefix: bullmqPrefix(testConfig({ QUEUE_PREFIX: prefix })),
    });
  });

  afterAll(async () => {
    await worker?.stop();
    await sandbox?.stop();
    await queue?.close();
    await redis?.destroy();
  });

  it('waits for it: the start-up refresh completes and the breaker never opens', async () => {
    const port = await freePort();
    worker = spawnWorker({
      REDIS_URL: redis.url,
      QUEUE_PREFIX: prefix,
      UPSTREAM_BASE_URL: `http://127.0.0.1:${port}`,
      // Its scheduler runs the refresh at once, as on every start.
      ...tuned({ institutionsRefreshMinutes: 360 }),
      LOG_LEVEL: 'info',
    });
    const calls = () =>
      worker!
        .output()
        .split('\n')
        .filter((l) => l.includes('"operation":"getInstitutions"'));
    // The upstream comes up once the refresh has been refused over two job runs (or, without the fix,
    // has already failed for good).
    await eventually('refresh calls refused', async () =>
      calls().length >= 6 || (await queue.getJobCountByTypes('failed')) > 0 ? true : undefined,
    );
    sandbox = await spawnSandbox({}, port);

    const refresh = await eventually('the refresh ended', async () => {
      const jobs = await queue.getJobs(['completed', 'failed']);
      const job = jobs.find((j) => j.name === 'maintenance.refresh-institutions');
      return job ? { state: await job.getState(), result: job.returnvalue as unknown } : undefined;
    });
    expect(refresh.state, worker.output()).toBe('completed');
    expect(refresh.result).toMatchObject({ count: expect.any(Number) });
    expect(worker.output()).toContain(`waiting for the upstream at http://127.0.0.1:${port}`);
    expect(worker.output()).not.toContain('upstream circuit breaker open');
  }, 120_000);
});
