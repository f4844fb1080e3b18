import { getQueueToken } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Job, Queue } from 'bullmq';
import { Gauge } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type AppLogger, LOGGER, Metrics, RefreshingSnapshot } from '#libs/observability';
import { ALL_QUEUES, type QueueName } from '#libs/queue';
import { withDeadline } from './metrics-deadline.js';

/** BullMQ's states a job can wait or run in (completed ones are history, kept only for Bull Board). */
const STATES = ['waiting', 'prioritized', 'active', 'delayed', 'waiting-children', 'failed'] as const;
/** How many of the longest-waiting jobs are looked at for one that has not started yet. */
const OLDEST_LOOKED_AT = 20;

interface QueueSnapshot {
  queue: QueueName;
  counts: Record<(typeof STATES)[number], number>;
  /** Seconds the longest-waiting job that has not started yet has been ready; 0 when none waits. */
  oldestWaitingSeconds: number;
}

/**
 * The readiness of the oldest waiting jobs that have not run yet: BullMQ keeps when a job was added and
 * its first delay, not when a retried or re-delayed job (a delivery between attempts) became ready again,
 * so those would look as old as their first enqueue; they are left out rather than raise false alarms.
 */
function oldestWaitingSeconds(jobs: readonly Job[], now: number): number {
  let oldest = 0;
  for (const job of jobs) {
    if (job.processedOn || job.attemptsMade > 0) continue;
    const readyAt = job.timestamp + (job.opts.delay ?? 0);
    oldest = Math.max(oldest, (now - readyAt) / 1000);
  }
  return oldest;
}

/**
 * Queue depth per state and the age of the oldest waiting job, for every queue of the catalogue:
 * `bff_queue_jobs{queue,state}` and `bff_queue_oldest_waiting_seconds{queue}`. Read from Redis at most
 * every `tuning.workerMetricsRefreshSeconds`, whoever scrapes (a count per state is one command per queue).
 * Queues are the deployment's, not this worker's: every worker shows the same figures.
 */
@Injectable()
export class QueueMetricsCollector {
  private readonly snapshot: RefreshingSnapshot<QueueSnapshot[]>;
  private failing = false;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly moduleRef: ModuleRef,
    metrics: Metrics,
  ) {
    this.snapshot = new RefreshingSnapshot(
      () => this.load(),
      config.tuning.workerMetricsRefreshSeconds * 1000,
      (error) => this.failed(error),
    );
    const snapshot = this.snapshot;
    const registers = [metrics.registry];
    new Gauge({
      name: 'bff_queue_jobs',
      help: 'Jobs per queue and BullMQ state (waiting, prioritized, active, delayed, waiting-children, failed), deployment-wide.',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        for (const queue of (await snapshot.get()) ?? []) {
          for (const state of STATES) this.set({ queue: queue.queue, state }, queue.counts[state]);
        }
      },
    });
    new Gauge({
      name: 'bff_queue_oldest_waiting_seconds',
      help: 'How long the oldest job waiting in each queue that has not run yet has been ready (0: none waits).',
      labelNames: ['queue'],
      registers,
      async collect() {
        for (const queue of (await snapshot.get()) ?? []) {
          this.set({ queue: queue.queue }, queue.oldestWaitingSeconds);
        }
      },
    });
  }

  /**
   * Seconds since the queues were last read well (see bff_metrics_snapshot_age_seconds), after the read a scrape
   * may have started: a first scrape shows the age of what it shows.
   */
  async ageSeconds(): Promise<number | undefined> {
    await this.snapshot.get();
    return this.snapshot.ageSeconds();
  }

  private async load(): Promise<QueueSnapshot[]> {
    const snapshots = await withDeadline(
      Promise.all(
        ALL_QUEUES.map(async (name) => {
          const queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
          const [counts, waiting] = await Promise.all([
            queue.getJobCounts(...STATES),
            queue.getJobs(['wait'], 0, OLDEST_LOOKED_AT - 1, true),
          ]);
          return {
            queue: name,
            counts: Object.fromEntries(STATES.map((s) => [s, counts[s] ?? 0])) as QueueSnapshot['counts'],
            oldestWaitingSeconds: oldestWaitingSeconds(waiting, Date.now()),
          };
        }),
      ),
      'queue metrics',
    );
    if (this.failing) this.logger.info('queue metrics read again');
    this.failing = false;
    return snapshots;
  }

  private failed(error: unknown): void {
    if (!this.failing)
      this.logger.warn({ err: error }, 'queue metrics cannot be read: the gauges keep their last values');
    this.failing = true;
  }
}
