import { getQueueToken } from '@nestjs/bullmq';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bullmqPrefix, JobProducerService, QueueName } from '#libs/queue';
import { MaintenanceProcessor } from '../apps/worker/src/maintenance/maintenance.processor.js';
import { startWorker, uniqueQueuePrefix } from './kit/index.js';

describe('worker: a headless Nest context consuming BullMQ', () => {
  const prefix = uniqueQueuePrefix('worker');
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let events: QueueEvents;

  beforeAll(async () => {
    worker = await startWorker({ QUEUE_PREFIX: prefix, WORKER_CONCURRENCY: '3' });
    events = new QueueEvents(QueueName.Maintenance, {
      connection: { url: worker.config.redis.url },
      prefix: bullmqPrefix(worker.config),
    });
    await events.waitUntilReady();
  });
  afterAll(async () => {
    const queue = worker?.app.get<Queue>(getQueueToken(QueueName.Maintenance));
    await queue?.obliterate({ force: true });
    await events?.close();
    await worker?.app.close();
  });

  it('runs a job enqueued through the typed catalogue and returns its result', async () => {
    const producer = worker.app.get(JobProducerService);
    const job = await producer.enqueue('maintenance.ping', { sentAt: new Date().toISOString() });
    const result = await job.waitUntilFinished(events, 15_000);
    expect(result.pid).toBe(process.pid);
    expect(Number.isNaN(Date.parse(result.receivedAt))).toBe(false);
  });

  it('collapses a burst of the same job into one, by the catalogue’s dedupe id', async () => {
    const producer = worker.app.get(JobProducerService);
    const consentId = '0190c0de-0000-7000-8000-0000000000aa';
    const queue = worker.app.get<Queue>(getQueueToken(QueueName.Consents));
    await queue.pause();
    try {
      const jobs = await Promise.all(
        Array.from({ length: 5 }, () =>
          producer.enqueue('consents.poll-embedded', { merchantId: consentId, consentId }),
        ),
      );
      expect(new Set(jobs.map((j) => j.id))).toEqual(new Set([`consents.poll-embedded.${consentId}`]));
      expect(await queue.getJobCountByTypes('wait', 'delayed', 'prioritized')).toBe(1);
    } finally {
      await queue.obliterate({ force: true });
      await queue.resume();
    }
  });

  it('fails a job it does not know without retrying it', async () => {
    const queue = worker.app.get<Queue>(getQueueToken(QueueName.Maintenance));
    const job = await queue.add('maintenance.unknown', {}, { attempts: 5 });
    await expect(job.waitUntilFinished(events, 15_000)).rejects.toThrow(/Unknown job maintenance.unknown/);
    const failed = await queue.getJob(job.id!);
    expect(failed?.attemptsMade).toBe(1);
  });

  it('takes its queue prefix and concurrency from configuration', () => {
    const processor = worker.app.get(MaintenanceProcessor);
    expect(processor.worker.concurrency).toBe(3);
    expect(processor.worker.opts.prefix).toBe(`{${prefix}}`);
    expect(processor.worker.isRunning()).toBe(true);
  });
});
