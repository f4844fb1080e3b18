import { Inject, Injectable } from '@nestjs/common';
import type pg from 'pg';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { MerchantId } from '#libs/context';
import { DatabasePool } from '#libs/database';
import {
  AccountPlacementRepository,
  AccountSyncStateRepository,
  type SyncTarget,
} from '#libs/domain/accounts';
import { ConsentFirstSyncRepository } from '#libs/domain/consents';
import { MerchantEventRepository, type NewMerchantEvent } from '#libs/domain/events';
import {
  type ClaimedRun,
  type RunFailure,
  RunSupersededError,
  SyncRunMetrics,
  SyncRunRepository,
  type SyncWindow,
} from '#libs/domain/sync-runs';
import { type AppLogger, LOGGER } from '#libs/observability';
import type { AccountBalance } from '#libs/upstream-client';
import { changed, connectionSyncedEvent, syncEvent } from './sync-events.js';
import { TransactionRepository } from './transaction.repository.js';

export type SyncOutcome = 'succeeded' | 'failed' | 'already-ended';

/** The claimed run, with the merchant its job was enqueued for (checked to be the run's own). */
export type TenantRun = ClaimedRun & { merchantId: MerchantId };

/** A failed account is tried again after as long as it has been failing, within these bounds (seconds). */
const FAILED_RETRY_MIN_SECONDS = 5 * 60;

/**
 * How a sync run ends, and what it says meanwhile: the final transaction of a success (removals,
 * balances, the run, the account, the events), a failure (the run, the account's error and its next try,
 * `sync.failed`), and a failed attempt the queue tries again (shown on the run and the account at once).
 * Each claim holds: docs/sync.md#what-each-status-promises. The metrics and the operator's log lines are
 * written here too, once per run that ended.
 */
@Injectable()
export class SyncRunEndingService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly database: DatabasePool,
    private readonly runs: SyncRunRepository,
    private readonly transactions: TransactionRepository,
    private readonly placement: AccountPlacementRepository,
    private readonly syncState: AccountSyncStateRepository,
    private readonly events: MerchantEventRepository,
    private readonly firstSyncs: ConsentFirstSyncRepository,
    private readonly metrics: SyncRunMetrics,
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
      const removed =
        seen === null
          ? 0
          : await this.transactions.removeUnseen(run.merchantId, db, run.accountId, window, seen);
      await this.placement.replaceBalances(
        run.merchantId,
        db,
        run.accountId,
        balances
          .filter((b) => typeof b.type === 'string' && b.balanceAmount !== undefined)
          .map((b) => ({
            type: b.type!,
            amount: b.balanceAmount!.amount,
            currency: b.balanceAmount!.currency,
            dateTime: b.dateTime ?? null,
            creditLineIncluded: b.creditLineIncluded ?? null,
            creditLines: b.creditLines ?? null,
          })),
      );
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
      await this.events.record(db, [...events, ...(await this.connectionReady(db, run, target))]);
      return progress;
    });
    this.metrics.finished('succeeded', target.consent.institutionId);
    this.logger.info({ runId: run.id, accountId: run.accountId, ...ended }, 'sync succeeded');
    return 'succeeded';
  }

  /** An attempt failed and the queue tries again: the run and the account say so now, not at the end. */
  async attemptFailed(
    run: TenantRun,
    target: SyncTarget,
    failure: RunFailure,
    retryInMs: number,
  ): Promise<void> {
    const nextAttemptAt = new Date(Date.now() + retryInMs);
    // One transaction: the run and the account never disagree on when the next attempt is.
    await this.database.transaction(async (db) => {
      await this.runs.recordAttemptFailure(db, run, failure, nextAttemptAt);
      await this.syncState.noteAttemptFailed(run.merchantId, db, run.accountId, {
        error: failure.message,
        nextAttemptAt,
      });
    });
    this.logger.warn(
      { ...this.failureFields(run, target, failure), attempt: run.claim, nextAttemptAt },
      'sync attempt failed; the queue tries again',
    );
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
      await this.events.record(db, [...events, ...(await this.connectionReady(db, run, target))]);
      return true;
    });
    if (!ended) return;
    this.metrics.finished('failed', target.consent.institutionId);
    this.logger.warn(
      { ...this.failureFields(run, target, failure), upstreamTracingId, nextSyncAt },
      'sync failed',
    );
  }

  /** What an operator needs of a failure on one line: whose, which bank, why, and what to quote upstream. */
  private failureFields(run: TenantRun, target: SyncTarget, failure: RunFailure) {
    return {
      runId: run.id,
      accountId: run.accountId,
      merchantId: run.merchantId,
      institutionId: target.consent.institutionId,
      code: failure.code,
      reason: failure.message,
      upstreamTracingId: tracingIdOf(failure),
    };
  }

  /**
   * consent.synced, when this run was the last of the consent's first syncs to end (with the run's end in
   * the same transaction, so the check sees it): the whole connection is ready. Only first syncs ask.
   */
  private async connectionReady(
    db: pg.PoolClient,
    run: TenantRun,
    target: SyncTarget,
  ): Promise<NewMerchantEvent[]> {
    if (run.trigger !== 'INITIAL') return [];
    const ready = await this.firstSyncs.markFirstSynced(run.merchantId, db, target.consent.id);
    if (!ready) return [];
    return [connectionSyncedEvent(target, ready)];
  }

  /** Due again after the interval, give or take a tenth, so accounts synced together spread out. */
  private nextSyncAt(now: Date): Date {
    const intervalMs = this.config.sync.intervalMinutes * 60_000;
    return new Date(now.getTime() + intervalMs * (0.9 + Math.random() * 0.2));
  }
}

/** The upstream's tracing id a failure carries, if any. */
function tracingIdOf(failure: RunFailure): string | null {
  const details = failure.details as { tracingId?: unknown } | undefined;
  return typeof details?.tracingId === 'string' ? details.tracingId : null;
}
