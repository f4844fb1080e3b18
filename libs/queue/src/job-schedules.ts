import type { Queue } from 'bullmq';
import type { AppConfig, Tuning } from '#libs/config';
import {
  ALL_JOB_NAMES,
  type Interval,
  JOB_DEFINITIONS,
  type JobName,
  type JobSchedule,
} from './job-catalogue.js';

/** A job the catalogue schedules: its scheduler's id (the job's name) and the tuning that sets its interval. */
export interface ScheduledJob extends JobSchedule {
  name: JobName;
  id: string;
}

/** Every schedule the catalogue declares, whether or not this process's configuration turns it on. */
export const JOB_SCHEDULES: readonly ScheduledJob[] = ALL_JOB_NAMES.flatMap((name) => {
  const schedule: JobSchedule | undefined = JOB_DEFINITIONS[name].schedule;
  return schedule ? [{ name, id: name, ...schedule }] : [];
});

/** The tuning that turns every schedule off: what tests and benches run with, starting the work themselves. */
export const SCHEDULES_OFF: Readonly<Partial<Tuning>> = Object.fromEntries(
  JOB_SCHEDULES.map((s) => [s.every, 0]),
);

/** One scheduler to upsert: the job, its fixed id and this process's interval. */
export interface ActiveJobSchedule {
  name: JobName;
  id: string;
  everyMs: number;
}

const intervalMs = (config: AppConfig, every: Interval) =>
  config.tuning[every] * (every.endsWith('Minutes') ? 60_000 : 1000);

/** The schedules this process registers: those whose interval its configuration does not set to 0. */
export function activeJobSchedules(config: AppConfig): ActiveJobSchedule[] {
  return JOB_SCHEDULES.map(({ name, id, every }) => ({
    name,
    id,
    everyMs: intervalMs(config, every),
  })).filter((schedule) => schedule.everyMs > 0);
}

/**
 * Creates or updates one job scheduler. Every worker upserts the same id, so the deployment keeps one
 * scheduler per job; the template is the catalogue's, like any enqueue of the job.
 */
export async function upsertJobSchedule(queue: Queue, schedule: ActiveJobSchedule): Promise<void> {
  await queue.upsertJobScheduler(
    schedule.id,
    { every: schedule.everyMs },
    { name: schedule.name, data: {}, opts: JOB_DEFINITIONS[schedule.name].options },
  );
}

/** States in which a scheduler's next job will still run by itself (a worker promotes or takes it). */
const PENDING_STATES = new Set(['delayed', 'waiting', 'prioritized', 'waiting-children', 'active']);

/** A delayed next job this late was never promoted (its queue's markers were lost): it is re-added. */
const OVERDUE_GRACE_MS = 60_000;
/**
 * BullMQ adds a scheduler's next job as a worker takes the current one, in the worker's next command: a
 * current job active this long with no next job behind it lost that write (see nextJobPending).
 */
const ACTIVE_WITHOUT_NEXT_GRACE_MS = 10_000;

/** What `ensureJobSchedule` found: the scheduler as it should be, or what it restored. */
export type JobScheduleCheck = 'present' | 'missing' | 'stalled';

/**
 * Restores one scheduler if Redis forgot it (data lost in a restart or a failover) or holds it without a
 * next job, so that it would never fire again; otherwise leaves it alone. Every worker checks the same ids,
 * so at most one scheduler per job exists: two workers restoring at once upsert the same id, and an upsert
 * of an existing scheduler whose next job is still waiting re-adds that job at its own time. A scheduler
 * in order is never upserted, so workers do not reset each other's schedule (an upsert with another
 * interval, from a worker configured differently, would re-time it to now).
 */
export async function ensureJobSchedule(
  queue: Queue,
  schedule: ActiveJobSchedule,
  now = Date.now(),
): Promise<JobScheduleCheck> {
  const found = await queue.getJobScheduler(schedule.id);
  if (!found) {
    await upsertJobSchedule(queue, schedule);
    return 'missing';
  }
  if (await nextJobPending(queue, schedule.id, found.next, found.every ?? schedule.everyMs, now))
    return 'present';
  // A worker may have taken the next job and added the one after it since the scheduler was read.
  const again = await queue.getJobScheduler(schedule.id);
  if (!again) {
    await upsertJobSchedule(queue, schedule);
    return 'missing';
  }
  if (again.next !== found.next) return 'present';
  await upsertJobSchedule(queue, { ...schedule, everyMs: again.every ?? schedule.everyMs });
  return 'stalled';
}

async function nextJobPending(
  queue: Queue,
  id: string,
  next: number | undefined,
  everyMs: number,
  now: number,
): Promise<boolean> {
  if (next === undefined) return false;
  // BullMQ names a scheduler's jobs after it and the time each is due.
  const jobId = `repeat:${id}:${next}`;
  const state = await queue.getJobState(jobId);
  if (!PENDING_STATES.has(state)) return false;
  if (state === 'delayed') return next + Math.max(everyMs, OVERDUE_GRACE_MS) >= now;
  if (state !== 'active') return true;
  // The scheduler still names the job a worker took, so the write adding the one after it was lost (a
  // planned Sentinel failover loses what the old master took after the promotion). Left alone, the
  // scheduler fires again only once that job's lock has expired and the stalled-job check has run it
  // again, up to a minute on; restoring it adds its next job now, and the job that ran is left as it is.
  const job = await queue.getJob(jobId);
  return job?.processedOn === undefined || job.processedOn + ACTIVE_WITHOUT_NEXT_GRACE_MS >= now;
}
