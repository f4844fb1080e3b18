import type { Queue } from 'bullmq';
import type { AppConfig } from '#libs/config';
import { ALL_JOB_NAMES, JOB_DEFINITIONS, type JobName, type JobSchedule } from './job-catalogue.js';

/** A job the catalogue schedules, with its schedule. */
export interface ScheduledJob extends JobSchedule {
  name: JobName;
}

/** Every schedule the catalogue declares, whether or not this process's configuration turns it on. */
export const JOB_SCHEDULES: readonly ScheduledJob[] = ALL_JOB_NAMES.flatMap((name) => {
  const schedule: JobSchedule | undefined = JOB_DEFINITIONS[name].schedule;
  return schedule ? [{ name, ...schedule }] : [];
});

/** One scheduler to upsert: the job, its fixed id and this process's interval. */
export interface ActiveJobSchedule {
  name: JobName;
  id: string;
  everyMs: number;
}

/** The schedules this process registers: those whose interval its configuration does not set to 0. */
export function activeJobSchedules(config: AppConfig): ActiveJobSchedule[] {
  return JOB_SCHEDULES.map(({ name, id, everyMs }) => ({ name, id, everyMs: everyMs(config) })).filter(
    (schedule) => schedule.everyMs > 0,
  );
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
