import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { DelayedError, UnrecoverableError } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import {
  AccountSyncService,
  SyncDispatcherService,
  SyncRateLimitedError,
  SyncStoppedError,
} from '#libs/domain/sync';
import { type AppLogger, LOGGER } from '#libs/observability';
import { afterFailedAttempt, type JobHandlers, JobProcessor, QueueName } from '#libs/queue';

// A worker killed mid-sync leaves its job stalled; another worker takes it over once the lock expires
// (15 s; renewed every 7.5 s while the sync runs) and the stall check (every 5 s) sees it. Stalls are a
// crash, not the sync's fault, so several are allowed before BullMQ gives up (the dispatcher then revives
// the run). Should a live worker lose its lock, the run's fencing token stops it writing.
@Processor(QueueName.Sync, { maxStalledCount: 5, lockDuration: 15_000, stalledInterval: 5_000 })
export class SyncProcessor extends JobProcessor<typeof QueueName.Sync> {
  readonly queue = QueueName.Sync;

  protected readonly handlers: JobHandlers<typeof QueueName.Sync> = {
    'sync.account': async (job, token) => {
      try {
        return { status: await this.sync.run(job.data, afterFailedAttempt(job)) };
      } catch (error) {
        if (error instanceof SyncRateLimitedError) {
          // Waiting is not failing: the job comes back after the delay without spending an attempt.
          await job.moveToDelayed(Date.now() + error.retryInMs, token);
          throw new DelayedError();
        }
        if (error instanceof SyncStoppedError) throw new UnrecoverableError(error.message);
        throw error;
      }
    },
    'sync.dispatch': () => this.dispatcher.dispatch(),
  };

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) logger: AppLogger,
    private readonly sync: AccountSyncService,
    private readonly dispatcher: SyncDispatcherService,
  ) {
    super(config, logger);
  }

  /** Syncs hold pages in memory and keep a core busy: their own, smaller limit than WORKER_CONCURRENCY. */
  protected override concurrency(config: AppConfig): number {
    return config.sync.syncConcurrency;
  }
}
