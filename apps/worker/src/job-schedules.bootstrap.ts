import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type AppLogger, LOGGER } from '#libs/observability';
import {
  type ActiveJobSchedule,
  activeJobSchedules,
  ensureJobSchedule,
  JOB_DEFINITIONS,
  JobProducerService,
  upsertJobSchedule,
} from '#libs/queue';
import { CoalescedRuns } from './coalesced-runs.js';
import { discoverJobProcessors } from './job-handlers.check.js';

/**
 * Registers every schedule of the job catalogue that this worker's configuration turns on, once the
 * workers of the job's queue are ready, and keeps them: a Redis that restarts without its data (or a
 * failover that loses recent writes) forgets every scheduler, and nothing would run the sweeps that
 * recover the rest from Postgres. So each worker checks its schedulers whenever a queue connection is
 * ready again and every `tuning.scheduleCheckSeconds`, and restores those that are gone.
 *
 * Every worker does so under the same fixed scheduler ids, so the deployment runs each job once per
 * interval. A schedule set to 0 here is left alone, not removed: the setting means "not scheduled by this
 * worker" (the test kit sets all of them to 0 on shared queues).
 */
@Injectable()
export class JobSchedulesBootstrap implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly schedules: ActiveJobSchedule[];
  private timer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: (() => void)[] = [];
  /** A trigger during a check asks for one more after it, not a second one beside it. */
  private readonly checks = new CoalescedRuns(
    () => this.checkAll(),
    () => !this.stopped && this.registration !== 'under way',
  );
  /** Set while checks fail (Redis away), so the failure is logged once per outage, not once per check. */
  private failing = false;
  private stopped = false;
  /**
   * Checks wait for the start's own registration (on a fresh Redis they would otherwise find every
   * schedule missing first, and call registering "restoring"); when that registration could not be made
   * (Redis refused), the first check that finds them missing registers them.
   */
  private registration: 'under way' | 'done' | 'deferred' = 'under way';

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly producer: JobProducerService,
    private readonly discovery: DiscoveryService,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    this.schedules = activeJobSchedules(config);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.schedules.length === 0) return;
    for (const queue of new Set(this.schedules.map((s) => this.producer.queueFor(s.name)))) {
      this.unsubscribe.push(onReady(queue, () => this.check()));
    }
    this.timer = setInterval(() => this.check(), this.config.tuning.scheduleCheckSeconds * 1000);
    this.timer.unref();
    // Registered at start (a deploy that changes an interval or a job's options applies it), and waited
    // for, unless Redis refuses a queue's connection meanwhile: then the worker starts all the same and
    // registers them once Redis answers.
    const registered = this.registerAll()
      .then(() => {
        this.registration = 'done';
        return true;
      })
      .catch((err: unknown) => {
        this.registration = 'deferred';
        if (!this.stopped) this.logger.warn({ err }, 'job schedules not registered: Redis does not answer');
        return true;
      });
    const queues = [...new Set(this.schedules.map((s) => this.producer.queueFor(s.name)))];
    let refused: () => void = () => undefined;
    const unreachable = new Promise<false>((resolve) => {
      refused = () => resolve(false);
      for (const queue of queues) queue.on('error', refused);
    });
    const waited = await Promise.race([registered, unreachable]);
    for (const queue of queues) queue.off('error', refused);
    if (!waited) this.logger.warn('job schedules wait for Redis: registered once it answers');
  }

  /** Every schedule upserted once its queue's workers are ready (they wait for Redis as long as it takes). */
  private async registerAll(): Promise<void> {
    const processors = discoverJobProcessors(this.discovery);
    await Promise.all(
      this.schedules.map(async (schedule) => {
        const queue = JOB_DEFINITIONS[schedule.name].queue;
        // The boot check has made sure a processor serves every queue of the catalogue.
        await Promise.all(processors.filter((p) => p.queue === queue).map((p) => p.worker.waitUntilReady()));
        if (this.stopped) return;
        await upsertJobSchedule(this.producer.queueFor(schedule.name), schedule);
      }),
    );
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearInterval(this.timer);
    for (const off of this.unsubscribe.splice(0)) off();
  }

  /** Starts a check, or asks for another after the one under way; never throws. */
  check(): void {
    this.checks.request();
  }

  /** The check under way, if any (tests wait for it). */
  async settled(): Promise<void> {
    while (this.checks.underWay) await this.checks.underWay;
  }

  private async checkAll(): Promise<void> {
    try {
      const results = await Promise.all(
        this.schedules.map(async (schedule) => ({
          id: schedule.id,
          found: await ensureJobSchedule(this.producer.queueFor(schedule.name), schedule),
        })),
      );
      if (this.failing) this.logger.info('job schedules checked again: Redis answers');
      this.failing = false;
      const missing = results.filter((r) => r.found === 'missing').map((r) => r.id);
      const stalled = results.filter((r) => r.found === 'stalled').map((r) => r.id);
      const deferred = this.registration === 'deferred';
      this.registration = 'done';
      if (missing.length > 0 || stalled.length > 0) {
        if (deferred) this.logger.info({ missing, stalled }, 'job schedules registered: Redis answers');
        else this.logger.warn({ missing, stalled }, 'job scheduler restored');
      }
    } catch (err) {
      // Redis is away (or answering errors): the next check, or its reconnection, tries again.
      if (!this.failing) this.logger.warn({ err }, 'job schedules cannot be checked: Redis does not answer');
      this.failing = true;
    }
  }
}

/** Calls `listener` each time the queue's Redis connection is (again) ready; returns the unsubscribe. */
function onReady(queue: Queue, listener: () => void): () => void {
  const backend = queue.getBackend();
  backend.on('ready', listener);
  return () => backend.off('ready', listener);
}
