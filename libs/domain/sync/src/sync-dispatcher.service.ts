import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { AccountSyncStateRepository } from '#libs/domain/accounts';
import { SyncRunRepository } from '#libs/domain/sync-runs';
import { type AppLogger, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';

const BATCH = 5000;
/** Runs whose jobs are checked at once: two round trips each, pipelined on the queue's connection. */
const RESUME_CONCURRENCY = 50;

/**
 * Finds the accounts due for a sync in keyset batches and opens one run per account, each with its job;
 * accounts already running collapse into their active run. Then re-enqueues active runs that nobody has
 * touched for a while, so no run is left queued or running by a lost job.
 */
@Injectable()
export class SyncDispatcherService {
  constructor(
    private readonly syncState: AccountSyncStateRepository,
    private readonly runs: SyncRunRepository,
    private readonly jobs: JobProducerService,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.idleRunMs = config.tuning.syncRunIdleSeconds * 1000;
  }

  /**
   * A run untouched this long may have lost its job (Redis restarted without its data, or the job failed
   * by stalling): its job is made sure of. Short (`tuning.syncRunIdleSeconds`, 90), so that a Redis that forgot
   * its jobs delays a queued run by about this much and not more; harmless for runs that are fine, since
   * restarting a job that is waiting, delayed (a 429's Retry-After) or running leaves it as it is. A
   * running sync touches its run every page.
   */
  private readonly idleRunMs: number;

  async dispatch(now = new Date()): Promise<{ enqueued: number; resumed: number }> {
    // First, before this dispatch opens runs of its own: a dispatch of a million due accounts can outlast
    // the idle bound, and its own first runs would otherwise look idle by its end and
    // be looked up in Redis one by one (which failed a dispatch of 10^6 on a loaded machine).
    const resumed = await this.resumeIdleRuns();
    let enqueued = 0;
    let after: { nextSyncAt: Date; accountId: string } | null = null;
    // A batch's jobs go to Redis while the next batch is read and opened in Postgres.
    let sending: Promise<void> = Promise.resolve();
    try {
      for (;;) {
        const due = await this.syncState.dueForSync(now, after, BATCH);
        if (due.length === 0) break;
        const runs = await this.runs.openRuns(due, 'SCHEDULED');
        enqueued += runs.filter((r) => r.created).length;
        const merchantOf = new Map(due.map((a) => [a.accountId, a.merchantId]));
        await sending;
        sending = this.jobs.enqueueMany(
          'sync.account',
          runs.map((r) => ({
            merchantId: merchantOf.get(r.accountId)!,
            accountId: r.accountId,
            runId: r.id,
          })),
        );
        // Awaited before the next batch (or in `finally`); marked handled now, so that a failure while
        // Postgres is being read is not reported as an unhandled rejection meanwhile.
        sending.catch(() => undefined);
        const last = due[due.length - 1];
        after = { nextSyncAt: last.nextSyncAt, accountId: last.accountId };
        if (due.length < BATCH) break;
      }
    } finally {
      await sending;
    }
    if (enqueued > 0 || resumed > 0) this.logger.info({ enqueued, resumed }, 'sync dispatch');
    return { enqueued, resumed };
  }

  private async resumeIdleRuns(): Promise<number> {
    let resumed = 0;
    let afterId: string | null = null;
    for (;;) {
      const idle = await this.runs.idleActiveRuns(this.idleRunMs, BATCH, afterId);
      for (let i = 0; i < idle.length; i += RESUME_CONCURRENCY) {
        await Promise.all(
          idle.slice(i, i + RESUME_CONCURRENCY).map((run) =>
            this.jobs.restart('sync.account', {
              merchantId: run.merchantId,
              accountId: run.accountId,
              runId: run.id,
            }),
          ),
        );
      }
      resumed += idle.length;
      if (idle.length < BATCH) return resumed;
      afterId = idle[idle.length - 1].id;
    }
  }
}
