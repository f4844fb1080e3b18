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

/** Every schedule on, each at its own interval (7, 8, 9, … of its unit). */
const allOn = tuned(Object.fromEntries(JOB_SCHEDULES.map((s, i) => [s.every, 7 + i])));
const intervalOf = (every: string, i: number) => (7 + i) * (every.endsWith('Minutes') ? 60_000 : 1000);

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
    expect(found.map((s) => [s.queue, s.id, s.name, s.every])).toEqual(
      JOB_SCHEDULES.map((s, i) => [
        JOB_DEFINITIONS[s.name].queue,
        s.name,
        s.name,
        intervalOf(s.every, i),
      ]).sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
    );
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
