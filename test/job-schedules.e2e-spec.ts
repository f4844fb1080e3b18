import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALL_QUEUES,
  bullmqPrefix,
  JOB_DEFINITIONS,
  JOB_SCHEDULES,
  type JobName,
  type QueueName,
} from '#libs/queue';
import { startWorker, testConfig, tuned, uniqueQueuePrefix } from './kit/index.js';

const allOn = tuned({
  syncDispatchEverySeconds: 60,
  institutionsRefreshMinutes: 360,
  consentExpiryScanMinutes: 1440,
  consentReconcileMinutes: 30,
  eventsSweepEverySeconds: 15,
  paymentStatusPollSeconds: 5,
  retentionSweepMinutes: 60,
});

describe('job schedules: the catalogue’s schedules, registered once per deployment by every worker', () => {
  const prefix = uniqueQueuePrefix('schedules');
  const config = testConfig({ QUEUE_PREFIX: prefix });
  const workers: Awaited<ReturnType<typeof startWorker>>[] = [];
  let queues: Map<QueueName, Queue>;

  const schedulers = async () =>
    (
      await Promise.all(
        [...queues.values()].map(async (queue) =>
          (await queue.getJobSchedulers()).map((s) => ({
            queue: queue.name,
            id: s.key,
            name: s.name,
            every: s.every,
            opts: s.template?.opts,
          })),
        ),
      )
    )
      .flat()
      .sort((a, b) => a.id.localeCompare(b.id));

  beforeAll(async () => {
    queues = new Map(
      ALL_QUEUES.map((name) => [
        name,
        new Queue(name, { connection: { url: config.redis.url }, prefix: bullmqPrefix(config) }),
      ]),
    );
    // The scheduled jobs would act on the database every test file shares: nothing runs here.
    await Promise.all([...queues.values()].map((queue) => queue.pause()));
  });
  afterAll(async () => {
    for (const worker of workers) await worker.app.close();
    for (const queue of queues.values()) {
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });

  it('registers every schedule of the catalogue under its fixed id, with the job’s options', async () => {
    workers.push(await startWorker({ QUEUE_PREFIX: prefix, ...allOn }));
    const found = await schedulers();
    expect(found.map((s) => [s.queue, s.id, s.name, s.every])).toEqual([
      ['consents', 'consents.reconcile', 'consents.reconcile', 30 * 60_000],
      ['consents', 'consents.scan-expiry', 'consents.scan-expiry', 1440 * 60_000],
      ['events', 'events.sweep', 'events.sweep', 15_000],
      ['maintenance', 'maintenance.refresh-institutions', 'maintenance.refresh-institutions', 360 * 60_000],
      ['maintenance', 'maintenance.retention', 'maintenance.retention', 60 * 60_000],
      ['payments', 'payments.poll-status', 'payments.poll-status', 5_000],
      ['sync', 'sync.dispatch', 'sync.dispatch', 60_000],
    ]);
    for (const s of found) expect(s.opts).toEqual(JOB_DEFINITIONS[s.name as JobName].options);
    expect(found).toHaveLength(JOB_SCHEDULES.length);
  });

  it('keeps one scheduler per job when another worker starts, and leaves those its settings turn off', async () => {
    const before = await schedulers();
    workers.push(await startWorker({ QUEUE_PREFIX: prefix, ...allOn }));
    expect(await schedulers()).toEqual(before);
    // The test kit's settings: every schedule 0, so this worker registers none and removes none.
    workers.push(await startWorker({ QUEUE_PREFIX: prefix }));
    expect(await schedulers()).toEqual(before);
    // A changed interval is upserted onto the same scheduler.
    workers.push(await startWorker({ QUEUE_PREFIX: prefix, ...tuned({ eventsSweepEverySeconds: 30 }) }));
    const after = await schedulers();
    expect(after.map((s) => s.id)).toEqual(before.map((s) => s.id));
    expect(after.find((s) => s.id === 'events.sweep')?.every).toBe(30_000);
  });
});
