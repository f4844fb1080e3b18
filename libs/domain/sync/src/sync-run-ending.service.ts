import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { MerchantId } from '#libs/context';
import { DatabasePool } from '#libs/database';
import { AccountSyncStateRepository, type SyncTarget } from '#libs/domain/accounts';
import type { NewMerchantEvent } from '#libs/domain/events';
import {
  type ClaimedRun,
  type RunFailure,
  RunSupersededError,
  SyncRunRepository,
  type SyncWindow,
} from '#libs/domain/sync-runs';
import type { AccountBalance } from '#libs/upstream-client';
import { SyncEndEventsService } from './sync-end-events.service.js';
import { changed, syncEvent } from './sync-events.js';
import { SyncRunReportService } from './sync-run-report.service.js';
import { SyncedDataService } from './synced-data.service.js';

export type SyncOutcome = 'succeeded' | 'failed' | 'already-ended';

/** The claimed run, with the merchant its job was enqueued for (checked to be the run's own). */
export type TenantRun = ClaimedRun & { merchantId: MerchantId };

/** A failed account is tried again after as long as it has been failing, within these bounds (seconds). */
const FAILED_RETRY_MIN_SECONDS = 5 * 60;

/**
 * How a sync run ends, and what it says meanwhile: the final transaction of a success (removals,
 * balances, the run, the account, the events), a failure (the run, the account's error and its next try,
 * `sync.failed`), and a failed attempt the queue tries again (shown on the run and the account at once).
 * Each claim holds: docs/sync.md#what-each-status-promises. The data, the events and the operator's report
 * are each their own service; this one owns the transaction and the order within it.
 */
@Injectable()
export class SyncRunEndingService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly database: DatabasePool,
    private readonly runs: SyncRunRepository,
    private readonly syncState: AccountSyncStateRepository,
    private readonly syncedData: SyncedDataService,
    private readonly endEvents: SyncEndEventsService,
    private readonly report: SyncRunReportService,
  ) {}

  /**
   * `seen`: the dedupe key of every record the window returned, whose other stored records are removed;
   * null when the run appended every page to an account that had no rows (nothing stored is unseen).
   */
  async succeed(
    run: TenantRun,
    target: SyncTarget,
    window: SyncWindow,
    seen: Set<string> | null,
    balances: readonly AccountBalance[],
  ): Promise<SyncOutcome> {
    const now = new Date();
    const ended = await this.database.transaction(async (db) => {
      const removed = await this.syncedData.apply(db, run, window, seen, balances);
      const finished = await this.runs.finish(
        db,
        run,
        { status: 'SUCCEEDED', removed },
        this.config.retention.syncRunsPerAccount,
      );
      // Taken over by another worker meanwhile: this one's removals are rolled back with it.
      if (!finished) throw new RunSupersededError(run.id);
      const { tracingId: _none, ...progress } = finished;
      await this.syncState.markSyncSucceeded(run.merchantId, db, run.accountId, {
        at: now,
        nextSyncAt: this.nextSyncAt(now),
      });
      const events: NewMerchantEvent[] = [syncEvent(target, 'sync.succeeded', run, window, progress)];
      if (changed(progress)) events.push(syncEvent(target, 'transactions.changed', run, window, progress));
      await this.endEvents.record(db, run, target, events);
      return progress;
    });
    this.report.succeeded(run, target, ended);
    return 'succeeded';
  }

  /**
   * An attempt failed and the queue tries again: the run and the account say so now, not at the end.
   * `heldUntil`: the bank refused a read for its daily allowance; the account is held until then.
   */
  async attemptFailed(
    run: TenantRun,
    target: SyncTarget,
    failure: RunFailure,
    next: { retryInMs: number } | { heldUntil: Date },
  ): Promise<void> {
    const nextAttemptAt = 'heldUntil' in next ? next.heldUntil : new Date(Date.now() + next.retryInMs);
    // One transaction: the run and the account never disagree on when the next attempt is, and a held
    // account is never seen without its reason.
    await this.database.transaction(async (db) => {
      await this.runs.recordAttemptFailure(db, run, failure, nextAttemptAt);
      await this.syncState.noteAttemptFailed(run.merchantId, db, run.accountId, {
        error: failure.message,
        nextAttemptAt,
      });
      if ('heldUntil' in next) {
        await this.syncState.holdForDailyLimit(run.merchantId, run.accountId, next.heldUntil, db);
      }
    });
    this.report.attemptFailed(run, target, failure, nextAttemptAt);
  }

  /**
   * Ends the run as failed, shows why on the account, and records `sync.failed`: one transaction. The
   * account is tried again later; with `stop`, never again until its consent is resumed.
   */
  async fail(run: TenantRun, target: SyncTarget, failure: RunFailure, stop = false): Promise<void> {
    const now = new Date();
    let nextSyncAt: Date | null = null;
    let upstreamTracingId: string | null = null;
    const ended = await this.database.transaction(async (db) => {
      const finished = await this.runs.finish(
        db,
        run,
        { status: 'FAILED', failure },
        this.config.retention.syncRunsPerAccount,
      );
      if (!finished) return false;
      const { tracingId, ...progress } = finished;
      upstreamTracingId = tracingId;
      if (stop) await this.syncState.markSyncStopped(run.merchantId, db, run.accountId, failure.message);
      else {
        nextSyncAt = await this.syncState.markSyncFailed(run.merchantId, db, run.accountId, {
          error: failure.message,
          at: now,
          retry: {
            minSeconds: FAILED_RETRY_MIN_SECONDS,
            maxSeconds: this.config.sync.intervalMinutes * 60,
          },
          jitter: 0.9 + Math.random() * 0.2,
        });
      }
      const window = { from: run.windowFrom, before: run.windowBefore ?? now };
      const event = syncEvent(target, 'sync.failed', run, window, progress);
      event.data.error = { code: failure.code, message: failure.message, upstreamTracingId };
      const events = [event];
      // Pages written before the failure stay written: the stored set changed, and merchants are told.
      if (changed(progress)) events.push(syncEvent(target, 'transactions.changed', run, window, progress));
      await this.endEvents.record(db, run, target, events);
      return true;
    });
    if (!ended) return;
    this.report.failed(run, target, failure, { upstreamTracingId, nextSyncAt });
  }

  /** Due again after the interval, give or take a tenth, so accounts synced together spread out. */
  private nextSyncAt(now: Date): Date {
    const intervalMs = this.config.sync.intervalMinutes * 60_000;
    return new Date(now.getTime() + intervalMs * (0.9 + Math.random() * 0.2));
  }
}
