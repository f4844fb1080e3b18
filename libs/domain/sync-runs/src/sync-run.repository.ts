import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { currentRequestId, JOB_REQUEST_ID_PREFIX, type MerchantId } from '#libs/context';
import { DatabasePool, queryOn } from '#libs/database';
import { uuidV7 } from '#libs/ids';
import {
  type ClaimedRun,
  type FinishedRun,
  type RunFailure,
  type StoredSyncRun,
  SYNC_RUN_SQL,
  type SyncProgress,
  type SyncTrigger,
  type SyncWindow,
} from './sync-run.statements.js';

/** The run was claimed again by another worker (this one's job stalled and was taken over): stop. */
export class RunSupersededError extends Error {
  constructor(runId: string) {
    super(`sync run ${runId} was taken over by another worker`);
  }
}

/**
 * The one owner of `sync_runs` and of a run's status: queued → running → succeeded | failed, each step
 * guarded by the status it leaves.
 */
@Injectable()
export class SyncRunRepository {
  constructor(private readonly database: DatabasePool) {}

  /**
   * Opens a run for each account that has none active, and answers the active run of every account given
   * (new or already there). Safe to call any number of times at once. A run opened in an api request keeps
   * the request's tracing id (GET /v1/lookup finds it by the id the merchant was answered).
   */
  async openRuns(
    accounts: readonly { merchantId: string; accountId: string }[],
    trigger: SyncTrigger,
  ): Promise<{ id: string; accountId: string; created: boolean }[]> {
    if (accounts.length === 0) return [];
    const fresh = accounts.map((a) => ({ id: uuidV7(), merchant_id: a.merchantId, account_id: a.accountId }));
    const runs = await this.database.rows({
      ...SYNC_RUN_SQL.open,
      values: [JSON.stringify(fresh), trigger, accounts.map((a) => a.accountId), requestIdOfRun()],
    });
    // A run another process opened while this statement ran is not in its snapshot: read those again.
    const found = new Set(runs.map((r) => r.accountId));
    const missing = accounts.filter((a) => !found.has(a.accountId)).map((a) => a.accountId);
    if (missing.length === 0) return runs;
    const late = await this.database.rows({
      ...SYNC_RUN_SQL.active,
      values: [missing],
    });
    return [...runs, ...late];
  }

  /**
   * Marks the run running (again, when an attempt failed or its worker died: the run restarts) and answers
   * what the worker needs, or null when the run already ended: a repeated job then has nothing to do.
   * A restart reads the window again from its start: what it read (pages, fetched, unchanged) starts
   * again, while what earlier attempts wrote (inserted, updated) stays counted, once (see
   * TransactionRepository.writePage). Only `finish` writes `removed`. The counts are exact when the bank's
   * records in the window do not change between two attempts.
   */
  async claim(runId: string): Promise<ClaimedRun | null> {
    const [row] = await this.database.rows({
      ...SYNC_RUN_SQL.claim,
      values: [runId],
    });
    return row ?? null;
  }

  /**
   * Fixes the run's window the first time it is claimed; a restart reads the same window. `incremental`:
   * the window starts from the account's stored transactions, which makes a first sync `reconnected`
   * (also on a run opened by a release that did not mark it); `run` says so from here on, for its events.
   */
  async setWindow(run: ClaimedRun, window: SyncWindow, incremental: boolean): Promise<void> {
    const [row] = await this.database.rows({
      ...SYNC_RUN_SQL.setWindow,
      values: [run.id, window.from, window.before, run.claim, incremental],
    });
    if (!row) throw new RunSupersededError(run.id);
    run.reconnected = row.reconnected;
  }

  /** Progress and the resume point after a page, in the page's own transaction. */
  async recordPage(
    db: pg.PoolClient,
    run: ClaimedRun,
    page: Omit<SyncProgress, 'pages' | 'removed'>,
    checkpoint: { offset: number; upstreamMs: number; writeMs: number },
  ): Promise<void> {
    const result = await db.query({
      ...SYNC_RUN_SQL.recordPage,
      values: [
        run.id,
        page.fetched,
        page.inserted,
        page.updated,
        page.unchanged,
        JSON.stringify(checkpoint),
        run.claim,
      ],
    });
    // Thrown inside the page's transaction: the page written by a superseded worker is rolled back.
    if (result.rowCount === 0) throw new RunSupersededError(run.id);
  }

  /** An attempt failed and the queue tries again at `nextAttemptAt`: the run shows why meanwhile. */
  async recordAttemptFailure(
    db: pg.PoolClient,
    run: ClaimedRun,
    failure: RunFailure,
    nextAttemptAt: Date,
  ): Promise<void> {
    await db.query({
      ...SYNC_RUN_SQL.recordAttemptFailure,
      values: [
        run.id,
        failure.code.slice(0, 64),
        failure.message.slice(0, 1000),
        failure.details === undefined ? null : JSON.stringify(failure.details),
        nextAttemptAt,
        run.claim,
      ],
    });
  }

  /** Ends a running run; answers its final progress, or null when it ended or was taken over meanwhile. */
  async finish(
    db: pg.PoolClient,
    run: ClaimedRun,
    outcome: { status: 'SUCCEEDED'; removed: number } | { status: 'FAILED'; failure: RunFailure },
    keepPerAccount: number,
  ): Promise<FinishedRun | null> {
    const failure = outcome.status === 'FAILED' ? outcome.failure : undefined;
    const { rows } = await queryOn(db, {
      ...SYNC_RUN_SQL.finish,
      values: [
        run.id,
        outcome.status,
        outcome.status === 'SUCCEEDED' ? outcome.removed : 0,
        failure?.code.slice(0, 64) ?? null,
        failure?.message.slice(0, 1000) ?? null,
        failure?.details === undefined ? null : JSON.stringify(failure.details),
        run.claim,
      ],
    });
    if (rows[0]) await this.trimHistory(db, run.accountId, keepPerAccount);
    return rows[0] ?? null;
  }

  /**
   * Keeps the account's newest `keep` runs and removes the finished ones before them, so the history is
   * bounded per account as runs end (an index walk of `keep` entries, in the run's own transaction).
   */
  private async trimHistory(db: pg.PoolClient, accountId: string, keep: number): Promise<void> {
    await db.query({
      ...SYNC_RUN_SQL.trimHistory,
      values: [accountId, keep - 1],
    });
  }

  /** A run of the merchant (and of the session's user), or null: another tenant's run is "missing". */
  async findForCaller(merchantId: MerchantId, runId: string, userId?: string): Promise<StoredSyncRun | null> {
    const [row] = await this.database.rows({
      ...SYNC_RUN_SQL.findForCaller,
      values: [runId, merchantId, userId ?? null],
    });
    return row ?? null;
  }

  /**
   * One page of an account's runs, newest first (ids are uuid v7: creation order), after `beforeId`, with
   * one more to know whether more follow; null when the caller has no such account.
   */
  async pageForAccount(
    merchantId: MerchantId,
    accountId: string,
    limit: number,
    beforeId?: string,
    userId?: string,
  ): Promise<{ runs: StoredSyncRun[]; more: boolean } | null> {
    const rows = await this.database.rows({
      ...SYNC_RUN_SQL.pageForAccount,
      values: [accountId, merchantId, limit + 1, beforeId ?? null, userId ?? null],
    });
    if (rows.length === 0) return null;
    // The lateral join's columns are null together, on the one row of an account without runs.
    const runs = rows.filter((r) => r.id !== null).map(({ found: _found, ...run }) => run as StoredSyncRun);
    return { runs: runs.slice(0, limit), more: runs.length > limit };
  }

  /**
   * The merchant's runs an id names: failed with the upstream's tracing id `tracingId`, or the run whose
   * id it is. Newest first, at most `limit`.
   */
  async findForTracingLookup(
    merchantId: MerchantId,
    id: { tracingId: string; runId: string | null },
    limit: number,
  ): Promise<StoredSyncRun[]> {
    return this.database.rows({
      ...SYNC_RUN_SQL.findForTracingLookup,
      values: [merchantId, id.tracingId, id.runId, limit],
    });
  }

  /**
   * Active runs nobody has touched for `idleMs` (their job lost, or failed by too many stalls): the
   * dispatcher makes sure their jobs exist. Keyset pages on the id from `afterId` (active runs are few: the
   * unique index on active_account_id finds them), so runs whose jobs merely wait in a long queue do not
   * hide the ones Redis lost behind a limit.
   */
  async idleActiveRuns(
    idleMs: number,
    limit: number,
    afterId: string | null = null,
  ): Promise<{ id: string; merchantId: string; accountId: string }[]> {
    return this.database.rows({
      ...SYNC_RUN_SQL.idleActive,
      values: [idleMs / 1000, limit, afterId],
    });
  }
}

/** The tracing id of the api request under way, if this is one (a job's own id is never kept). */
function requestIdOfRun(): string | null {
  const id = currentRequestId();
  return id === undefined || id.startsWith(JOB_REQUEST_ID_PREFIX) ? null : id;
}
