import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { MerchantId } from '#libs/context';
import { DatabasePool, isoText, queryOn, type RowShape, sqlStatement } from '#libs/database';
import { isUuid, uuidV7 } from '#libs/ids';

/** A synced window: from (inclusive, null = from the beginning) to before (exclusive). */
export interface SyncWindow {
  from: Date | null;
  before: Date;
}

export type SyncTrigger = 'INITIAL' | 'SCHEDULED' | 'MANUAL';
export type SyncRunStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';

export interface SyncProgress {
  pages: number;
  fetched: number;
  inserted: number;
  updated: number;
  unchanged: number;
  removed: number;
}

/** A run as the API shows it (timestamps as ISO text). */
export interface StoredSyncRun extends SyncProgress {
  id: string;
  accountId: string;
  status: SyncRunStatus;
  trigger: SyncTrigger;
  windowFrom: string | null;
  windowBefore: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  errorDetails: unknown;
  /** Attempts started (claims): more than one when an attempt failed, or its worker died. */
  attempts: number;
  /** While running after a failed attempt: when the next one starts (ISO text). */
  nextAttemptAt: string | null;
  queuedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** A run as its worker claimed it. */
export interface ClaimedRun {
  id: string;
  /** The fencing token every later write of this worker presents. */
  claim: number;
  merchantId: string;
  accountId: string;
  trigger: SyncTrigger;
  windowFrom: Date | null;
  windowBefore: Date | null;
}

/** A run as it ended: its progress, and the upstream tracing id its failure keeps (any attempt's). */
export type FinishedRun = SyncProgress & { tracingId: string | null };

export interface RunFailure {
  code: string;
  message: string;
  details?: unknown;
}

const RUN_COLUMNS = `r.id, r.account_id AS "accountId", r.status, r.trigger, r.pages, r.fetched, r.inserted,
  r.updated, r.unchanged, r.removed, ${isoText('r.window_from')} AS "windowFrom",
  ${isoText('r.window_before')} AS "windowBefore", r.error_code AS "errorCode",
  r.error_message AS "errorMessage", r.error_details AS "errorDetails", r.claim AS attempts,
  ${isoText('r.next_attempt_at')} AS "nextAttemptAt", ${isoText('r.queued_at')} AS "queuedAt",
  ${isoText('r.started_at')} AS "startedAt", ${isoText('r.finished_at')} AS "finishedAt"`;

/*
 * One active run per account: `active_account_id` holds the account id while a run is queued or running
 * and is cleared when it ends, under a unique index. Opening a run where one is active answers that one.
 */
/*
 * One round trip: the runs opened now (the CTE's rows) and, for accounts that already had one, their
 * active run (the outer SELECT runs on the statement's snapshot, so it sees only runs from before it).
 */
const OPEN_RUNS = `WITH fresh AS (
    INSERT INTO sync_runs (id, merchant_id, account_id, active_account_id, trigger, updated_at)
    SELECT r.id, r.merchant_id, r.account_id, r.account_id, $2::sync_trigger, now()
    FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, merchant_id uuid, account_id uuid)
    ON CONFLICT (active_account_id) DO NOTHING
    RETURNING id, account_id)
  SELECT id, account_id AS "accountId", true AS created FROM fresh
  UNION ALL
  SELECT s.id, s.account_id AS "accountId", false AS created FROM sync_runs s
  WHERE s.active_account_id = ANY($3::uuid[])`;

const PROGRESS: RowShape<SyncProgress> = {
  pages: 'number',
  fetched: 'number',
  inserted: 'number',
  updated: 'number',
  unchanged: 'number',
  removed: 'number',
};

const STORED_RUN: RowShape<StoredSyncRun> = {
  ...PROGRESS,
  id: 'string',
  accountId: 'string',
  status: 'string',
  trigger: 'string',
  windowFrom: 'string',
  windowBefore: 'string',
  errorCode: 'string',
  errorMessage: 'string',
  errorDetails: 'json',
  attempts: 'number',
  nextAttemptAt: 'string',
  queuedAt: 'string',
  startedAt: 'string',
  finishedAt: 'string',
};

type OpenedRun = { id: string; accountId: string; created: boolean };
const OPENED_RUN: RowShape<OpenedRun> = { id: 'string', accountId: 'string', created: 'boolean' };

/** The new error details ($n, JSON or null), with an earlier attempt's tracing id when they have none. */
const KEEP_TRACING_ID = (n: string) => `CASE
    WHEN ${n}::jsonb IS NULL THEN NULL
    WHEN ${n}::jsonb ->> 'tracingId' IS NULL AND error_details ->> 'tracingId' IS NOT NULL
      THEN ${n}::jsonb || jsonb_build_object('tracingId', error_details ->> 'tracingId')
    ELSE ${n}::jsonb END`;

export const SYNC_RUN_SQL = {
  open: sqlStatement<OpenedRun>('sync-runs.open', OPEN_RUNS, OPENED_RUN),
  active: sqlStatement<OpenedRun>(
    'sync-runs.active',
    `SELECT id, account_id AS "accountId", false AS created FROM sync_runs
        WHERE active_account_id = ANY($1::uuid[])`,
    OPENED_RUN,
  ),
  claim: sqlStatement<ClaimedRun>(
    'sync-runs.claim',
    `UPDATE sync_runs SET status = 'RUNNING', started_at = COALESCE(started_at, now()),
          pages = 0, fetched = 0, unchanged = 0, checkpoint = NULL, next_attempt_at = NULL,
          claim = claim + 1, updated_at = now()
        WHERE id = $1::uuid AND status IN ('QUEUED', 'RUNNING')
        RETURNING id, claim, merchant_id AS "merchantId", account_id AS "accountId", trigger,
          window_from AS "windowFrom", window_before AS "windowBefore"`,
    {
      id: 'string',
      claim: 'number',
      merchantId: 'string',
      accountId: 'string',
      trigger: 'string',
      windowFrom: 'Date',
      windowBefore: 'Date',
    },
  ),
  setWindow: sqlStatement<{ id: string }>(
    'sync-runs.set-window',
    `UPDATE sync_runs SET window_from = $2, window_before = $3, updated_at = now()
        WHERE id = $1::uuid AND status = 'RUNNING' AND claim = $4 RETURNING id`,
    { id: 'string' },
  ),
  recordPage: sqlStatement(
    'sync-runs.record-page',
    `UPDATE sync_runs SET pages = pages + 1, fetched = fetched + $2, inserted = inserted + $3,
          updated = updated + $4, unchanged = unchanged + $5, checkpoint = $6::jsonb, updated_at = now()
        WHERE id = $1::uuid AND status = 'RUNNING' AND claim = $7`,
  ),
  /*
   * An attempt's error stays on the run until the next error or the run's success; a failure without the
   * upstream's tracing id (a breaker open, a timeout) keeps the last one an earlier attempt had.
   */
  recordAttemptFailure: sqlStatement(
    'sync-runs.record-attempt-failure',
    `UPDATE sync_runs SET error_code = $2, error_message = $3, error_details = ${KEEP_TRACING_ID('$4')},
          next_attempt_at = $5, updated_at = now()
        WHERE id = $1::uuid AND status = 'RUNNING' AND claim = $6`,
  ),
  finish: sqlStatement<FinishedRun>(
    'sync-runs.finish',
    `UPDATE sync_runs SET status = $2::sync_run_status, active_account_id = NULL, finished_at = now(),
          removed = removed + $3, error_code = $4, error_message = $5,
          error_details = ${KEEP_TRACING_ID('$6')}, next_attempt_at = NULL, updated_at = now()
        WHERE id = $1::uuid AND status = 'RUNNING' AND claim = $7
        RETURNING pages, fetched, inserted, updated, unchanged, removed,
          error_details ->> 'tracingId' AS "tracingId"`,
    { ...PROGRESS, tracingId: 'string' },
  ),
  trimHistory: sqlStatement(
    'sync-runs.trim-history',
    `DELETE FROM sync_runs WHERE account_id = $1 AND active_account_id IS NULL
          AND id < (SELECT id FROM sync_runs WHERE account_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
  ),
  findForCaller: sqlStatement<StoredSyncRun>(
    'sync-runs.find-for-caller',
    `SELECT ${RUN_COLUMNS} FROM sync_runs r JOIN accounts a ON a.id = r.account_id
        WHERE r.id = $1::uuid AND r.merchant_id = $2::uuid AND a.merchant_id = $2::uuid
          AND ($3::uuid IS NULL OR a.user_id = $3::uuid)`,
    STORED_RUN,
  ),
  pageForAccount: sqlStatement<StoredSyncRun & { found: string }>(
    'sync-runs.page-for-account',
    `SELECT a.id AS found, r.* FROM accounts a
        LEFT JOIN LATERAL (SELECT ${RUN_COLUMNS} FROM sync_runs r
          WHERE r.account_id = a.id AND r.merchant_id = a.merchant_id
            AND ($4::uuid IS NULL OR r.id < $4::uuid)
          ORDER BY r.id DESC LIMIT $3) r ON true
        WHERE a.id = $1::uuid AND a.merchant_id = $2::uuid AND ($5::uuid IS NULL OR a.user_id = $5::uuid)`,
    { found: 'string', ...STORED_RUN },
  ),
  findForTracingLookup: sqlStatement<StoredSyncRun>(
    'sync-runs.find-for-tracing-lookup',
    // Each way in by its own index (the tracing id's partial expression index, the primary key), so a
    // merchant with many runs is never scanned; the few found are then ordered.
    `SELECT ${RUN_COLUMNS} FROM sync_runs r
        WHERE r.merchant_id = $1::uuid AND r.id IN (
          SELECT id FROM sync_runs WHERE merchant_id = $1::uuid AND error_details IS NOT NULL
            AND (error_details ->> 'tracingId') = $2::text
          UNION ALL
          SELECT id FROM sync_runs WHERE id = $3::uuid AND merchant_id = $1::uuid)
        ORDER BY r.id DESC LIMIT $4`,
    STORED_RUN,
  ),
  idleActive: sqlStatement<{ id: string; merchantId: string; accountId: string }>(
    'sync-runs.idle-active',
    `SELECT id, merchant_id AS "merchantId", account_id AS "accountId" FROM sync_runs
        WHERE active_account_id IS NOT NULL AND updated_at < now() - make_interval(secs => $1::double precision)
          AND ($3::uuid IS NULL OR id > $3::uuid)
        ORDER BY id LIMIT $2`,
    { id: 'string', merchantId: 'string', accountId: 'string' },
  ),
};

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
   * (new or already there). Safe to call any number of times at once.
   */
  async openRuns(
    accounts: readonly { merchantId: string; accountId: string }[],
    trigger: SyncTrigger,
  ): Promise<{ id: string; accountId: string; created: boolean }[]> {
    if (accounts.length === 0) return [];
    const fresh = accounts.map((a) => ({ id: uuidV7(), merchant_id: a.merchantId, account_id: a.accountId }));
    const runs = await this.database.rows({
      ...SYNC_RUN_SQL.open,
      values: [JSON.stringify(fresh), trigger, accounts.map((a) => a.accountId)],
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

  /** Fixes the run's window the first time it is claimed; a restart reads the same window. */
  async setWindow(run: ClaimedRun, window: SyncWindow): Promise<void> {
    const rows = await this.database.rows({
      ...SYNC_RUN_SQL.setWindow,
      values: [run.id, window.from, window.before, run.claim],
    });
    if (rows.length === 0) throw new RunSupersededError(run.id);
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
  async recordAttemptFailure(run: ClaimedRun, failure: RunFailure, nextAttemptAt: Date): Promise<void> {
    await this.database.rows({
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
    if (!isUuid(runId) || !isUuid(merchantId) || (userId !== undefined && !isUuid(userId))) return null;
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
    if (!isUuid(accountId) || !isUuid(merchantId) || (userId !== undefined && !isUuid(userId))) return null;
    const rows = await this.database.rows({
      ...SYNC_RUN_SQL.pageForAccount,
      values: [accountId, merchantId, limit + 1, beforeId ?? null, userId ?? null],
    });
    if (rows.length === 0) return null;
    const runs = rows.filter((r) => r.id !== null).map(({ found: _found, ...run }) => run);
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
      values: [merchantId, id.tracingId, id.runId !== null && isUuid(id.runId) ? id.runId : null, limit],
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
