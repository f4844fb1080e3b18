import { Injectable } from '@nestjs/common';
import type { Job, Worker } from 'bullmq';
import { QueueName } from './job-catalogue.js';

/**
 * Queues of bulk work: nobody waits on any one of their jobs (a flood of upstream webhooks fanned out,
 * deliveries retried, retention). Their workers give way to work someone waits for (see {@link LaneGovernor}).
 */
export const BULK_QUEUES: ReadonlySet<QueueName> = new Set([QueueName.Events, QueueName.Maintenance]);

/**
 * Work someone is waiting for: a first sync, a sync a merchant asked for. The producer enqueues it ahead
 * of the queue (`enqueueMany`'s `ahead`, BullMQ's `lifo`); that mark is also what makes it interactive here.
 */
export const isInteractive = (job: Job): boolean => job.opts.lifo === true;

/** How many bulk jobs a queue of bulk work runs at once while this process runs interactive work. */
export const BULK_CONCURRENCY_WHILE_INTERACTIVE = 1;
/**
 * How long after the last interactive job ends the bulk queues stay slowed: the next of a batch of asked
 * syncs is usually fetched within milliseconds, and the bulk workers would otherwise flap up and down.
 */
const RESTORE_AFTER_MS = 500;

/**
 * One per worker process: the lanes. A worker process's jobs share one event loop (and one pool of
 * database connections), which serves their callbacks in turn, not by who waits: 50 fan-out jobs at once
 * beside 2 syncs give the syncs a 26th of the process. So while any interactive job runs here, every
 * worker of a bulk queue takes new jobs at most {@link BULK_CONCURRENCY_WHILE_INTERACTIVE} at a time (its
 * running jobs finish), and gets its own concurrency back once none has run for {@link RESTORE_AFTER_MS}.
 * Bulk work slows, never stops; another worker process with no interactive work runs it at full speed.
 */
@Injectable()
export class LaneGovernor {
  private interactive = 0;
  /** The bulk workers of this process, each with the concurrency it had before it gave way. */
  private readonly bulk = new Map<Worker, number | undefined>();
  private restoreTimer: NodeJS.Timeout | undefined;

  /** A worker of a {@link BULK_QUEUES} queue: it gives way from now on. */
  addBulkWorker(worker: Worker): void {
    this.bulk.set(worker, undefined);
    if (this.interactive > 0) this.giveWay();
  }

  /** Runs a job's work, counted as interactive while it runs when it is. */
  async run<T>(job: Job, work: () => Promise<T>): Promise<T> {
    if (!isInteractive(job)) return work();
    if (this.interactive++ === 0) {
      clearTimeout(this.restoreTimer);
      this.giveWay();
    }
    try {
      return await work();
    } finally {
      if (--this.interactive === 0) {
        this.restoreTimer = setTimeout(() => this.restore(), RESTORE_AFTER_MS);
        this.restoreTimer.unref();
      }
    }
  }

  /** Whether the bulk workers are slowed now (for tests and metrics). */
  givingWay(): boolean {
    return [...this.bulk.values()].some((own) => own !== undefined);
  }

  private giveWay(): void {
    for (const [worker, own] of this.bulk) {
      if (own !== undefined) continue;
      this.bulk.set(worker, worker.concurrency);
      worker.concurrency = Math.min(worker.concurrency, BULK_CONCURRENCY_WHILE_INTERACTIVE);
    }
  }

  private restore(): void {
    if (this.interactive > 0) return;
    for (const [worker, own] of this.bulk) {
      if (own === undefined) continue;
      worker.concurrency = own;
      this.bulk.set(worker, undefined);
    }
  }
}
