import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tuning } from '#libs/config';
import { testConfig, uniqueQueuePrefix } from '#libs/testing';
import { JOB_DEFINITIONS, type JobDefinition } from './job-catalogue.js';
import {
  type ActiveJobSchedule,
  activeJobSchedules,
  ensureJobSchedule,
  JOB_SCHEDULES,
  upsertJobSchedule,
} from './job-schedules.js';

/** Every schedule on, each at its own interval (7, 8, 9, … of its unit), so none can stand in for another. */
const allOn: Partial<Tuning> = Object.fromEntries(JOB_SCHEDULES.map((s, i) => [s.every, 7 + i]));

describe('job catalogue: schedules', () => {
  it('declares each scheduler under its job’s name, the id operators and tests know it by', () => {
    for (const schedule of JOB_SCHEDULES) expect(schedule.id).toBe(schedule.name);
    expect(JOB_SCHEDULES.length).toBeGreaterThan(5);
  });

  it('takes each interval from its own tuning value, in the unit its name says', () => {
    expect(activeJobSchedules(testConfig({}, allOn)).map((s) => [s.id, s.everyMs])).toEqual(
      JOB_SCHEDULES.map((s, i) => [s.id, (7 + i) * (s.every.endsWith('Minutes') ? 60_000 : 1000)]),
    );
    expect(activeJobSchedules(testConfig({}, { ...allOn, syncDispatchEverySeconds: 60 }))).toContainEqual({
      name: 'sync.dispatch',
      id: 'sync.dispatch',
      everyMs: 60_000,
    });
  });

  it('leaves out a schedule whose tuning value is 0, and every one when all are', () => {
    const some = activeJobSchedules(testConfig({}, { ...allOn, eventsSweepEverySeconds: 0 }));
    expect(some.map((s) => s.name)).not.toContain('events.sweep');
    expect(some).toHaveLength(JOB_SCHEDULES.length - 1);
    // The test kit turns every schedule off.
    expect(activeJobSchedules(testConfig())).toEqual([]);
  });

  it('only lets a job without a payload be scheduled (its scheduler enqueues {})', () => {
    const schedule = { every: 'eventsSweepEverySeconds' } as const;
    const withPayload: JobDefinition<'consents.poll-embedded'> = {
      ...JOB_DEFINITIONS['consents.poll-embedded'],
      // @ts-expect-error a job with a payload cannot have a schedule
      schedule,
    };
    const withoutPayload: JobDefinition<'sync.dispatch'> = { ...JOB_DEFINITIONS['sync.dispatch'], schedule };
    expect([withPayload.queue, withoutPayload.schedule?.every]).toEqual([
      'consents',
      'eventsSweepEverySeconds',
    ]);
  });
});

describe('ensureJobSchedule: a scheduler Redis forgot is restored, one in order is left alone', () => {
  const config = testConfig();
  let queue: Queue;
  const sweep: ActiveJobSchedule = { name: 'events.sweep', id: 'events.sweep', everyMs: 60_000 };

  const state = async () => {
    const found = await queue.getJobScheduler(sweep.id);
    const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized', 'active']);
    return { next: found?.next, every: found?.every, count: await queue.getJobSchedulersCount(), jobs };
  };

  beforeAll(() => {
    // No worker: the jobs the schedulers add stay where they are.
    queue = new Queue('events', {
      connection: { url: config.redis.url },
      prefix: uniqueQueuePrefix('ensure-schedule'),
    });
  });
  afterAll(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it('restores a missing scheduler, then leaves it as it is: no postponing, no second one', async () => {
    expect(await ensureJobSchedule(queue, sweep)).toBe('missing');
    const restored = await state();
    expect(restored.count).toBe(1);
    expect(restored.jobs.map((j) => j.repeatJobKey)).toEqual([sweep.id]);
    expect(await ensureJobSchedule(queue, sweep)).toBe('present');
    // Another worker configured with another interval does not re-time it either.
    expect(await ensureJobSchedule(queue, { ...sweep, everyMs: 5_000 })).toBe('present');
    const after = await state();
    expect([after.next, after.every, after.count]).toEqual([restored.next, 60_000, 1]);
    expect(after.jobs.map((j) => j.id)).toEqual(restored.jobs.map((j) => j.id));
  });

  it('restores a scheduler whose next job is gone, keeping its interval', async () => {
    const before = await state();
    // Lost as a failover loses a recent write (BullMQ refuses to remove a scheduler's job itself).
    const lost = before.jobs[0].id!;
    const redis = new Redis(config.redis.url);
    try {
      await redis.del(queue.toKey(lost));
      await redis.lrem(queue.toKey('wait'), 0, lost);
    } finally {
      redis.disconnect();
    }
    expect(await ensureJobSchedule(queue, { ...sweep, everyMs: 5_000 })).toBe('stalled');
    const after = await state();
    expect([after.count, after.every, after.jobs.length]).toEqual([1, 60_000, 1]);
    expect(after.next).toBeGreaterThan(before.next!);
    expect(await ensureJobSchedule(queue, sweep)).toBe('present');
  });

  it('restores a scheduler whose job a worker took when the write adding its next job was lost', async () => {
    await queue.obliterate({ force: true });
    // Due at once, for a worker to take.
    await queue.upsertJobScheduler(
      sweep.id,
      { every: sweep.everyMs, startDate: Date.now() - 1 },
      {
        name: sweep.name,
      },
    );
    const { next: took } = await state();
    const worker = new Worker('events', null, {
      connection: queue.opts.connection,
      prefix: queue.opts.prefix,
    });
    const redis = new Redis(config.redis.url);
    try {
      // Taking it adds the next job (BullMQ's upsert, in the worker's next command)...
      const job = await worker.getNextJob('lost-write');
      expect(job.id).toBe(`repeat:${sweep.id}:${took}`);
      const { next: added } = await state();
      expect(added).toBeGreaterThan(took!);
      // ...which a failover lost: the scheduler names the taken job again, and nothing follows it.
      await redis.zadd(queue.toKey('repeat'), took!, sweep.id);
      await redis.del(queue.toKey(`repeat:${sweep.id}:${added}`));
      await redis.zrem(queue.toKey('delayed'), `repeat:${sweep.id}:${added}`);
      expect((await state()).jobs.map((j) => j.id)).toEqual([job.id]);

      // A worker may not have sent that write yet: for a moment it is left alone.
      expect(await ensureJobSchedule(queue, sweep, job.processedOn! + 1_000)).toBe('present');
      expect(await ensureJobSchedule(queue, sweep, job.processedOn! + 10_001)).toBe('stalled');
      const after = await state();
      expect(after.next).toBeGreaterThan(took!);
      expect(after.jobs.map((j) => [j.id, j.repeatJobKey]).sort()).toEqual(
        [
          [job.id, sweep.id],
          [`repeat:${sweep.id}:${after.next}`, sweep.id],
        ].sort(),
      );
      expect(await queue.getJobState(job.id!)).toBe('active');
      expect(await ensureJobSchedule(queue, sweep, job.processedOn! + 10_001)).toBe('present');
    } finally {
      await worker.close(true);
      redis.disconnect();
    }
  });

  it('keeps one scheduler and one next job when workers restore it at the same time', async () => {
    await queue.obliterate({ force: true });
    const found = await Promise.all(Array.from({ length: 4 }, () => ensureJobSchedule(queue, sweep)));
    expect(found).toContain('missing');
    const after = await state();
    expect([after.count, after.jobs.length]).toEqual([1, 1]);
    // The boot's unconditional upsert, with the same interval, keeps the next job's time as well.
    await upsertJobSchedule(queue, sweep);
    expect((await state()).next).toBe(after.next);
  });
});
