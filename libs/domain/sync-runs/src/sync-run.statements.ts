import { column, isoText, outerJoined, row, type RowOf, sqlStatement } from '#libs/database';

// The shapes of a sync run and the statements SyncRunRepository runs, apart from its methods.

/** A synced window: from (inclusive, null = from the beginning) to before (exclusive). */
export interface SyncWindow {
  from: Date | null;
  before: Date;
}

export type SyncTrigger = 'INITIAL' | 'SCHEDULED' | 'MANUAL';
export type SyncRunStatus = 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED';

export interface RunFailure {
  code: string;
  message: string;
  details?: unknown;
}

const RUN_COLUMNS = `r.id, r.account_id AS "accountId", r.status, r.trigger, r.reconnected, r.pages, r.fetched,
  r.inserted, r.updated, r.unchanged, r.removed, ${isoText('r.window_from')} AS "windowFrom",
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
/*
 * A first sync of an account that already holds booked or pending transactions (a re-authorisation, a
 * bank connected again) is marked `reconnected`: its window will start from them (WINDOW_START; the window,
 * once fixed, marks it again). Only first syncs ask: the dispatcher's batches of thousands skip the probe.
 */
/*
 * A run opened on request (first syncs, a merchant's POST …/sync) makes its account say so in the same
 * statement: `syncing` (`pending` before its first sync) and due at the run's first attempt, which is now,
 * so the account, the run and the stored list's meta agree at once (docs/sync.md). So does a first sync
 * that finds its account's run still queued (a consent authorised again before that run started): the
 * authorisation made the account due a little later, for the dispatcher (FIRST_SYNC_ASKED_WITHIN_MS). The
 * dispatcher's runs are of accounts already due, in batches of thousands: they leave their accounts as
 * they are.
 */
const OPEN_RUNS = `WITH fresh AS (
    INSERT INTO sync_runs (id, merchant_id, account_id, active_account_id, trigger, reconnected,
      request_id, next_attempt_at, updated_at)
    SELECT r.id, r.merchant_id, r.account_id, r.account_id, $2::sync_trigger,
      $2::sync_trigger = 'INITIAL' AND EXISTS (SELECT 1 FROM transactions t WHERE t.account_id = r.account_id
        AND t.merchant_id = r.merchant_id AND t.status IN ('BOOKED', 'PENDING')),
      $4::text, now(), now()
    FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, merchant_id uuid, account_id uuid)
    ON CONFLICT (active_account_id) DO NOTHING
    RETURNING id, account_id, merchant_id),
  asked AS (
    UPDATE accounts a SET next_sync_at = now(), updated_at = now(),
      sync_status = CASE WHEN a.sync_status IN ('SYNCED', 'FAILED') THEN 'SYNCING' ELSE a.sync_status END
    FROM (SELECT account_id, merchant_id FROM fresh
      UNION ALL
      SELECT s.account_id, s.merchant_id FROM sync_runs s
      WHERE $2::sync_trigger = 'INITIAL' AND s.active_account_id = ANY($3::uuid[]) AND s.status = 'QUEUED'
    ) AS asked_for
    WHERE $2::sync_trigger <> 'SCHEDULED' AND a.id = asked_for.account_id
      AND a.merchant_id = asked_for.merchant_id AND a.sync_status <> 'STOPPED')
  SELECT id, account_id AS "accountId", true AS created FROM fresh
  UNION ALL
  SELECT s.id, s.account_id AS "accountId", false AS created FROM sync_runs s
  WHERE s.active_account_id = ANY($3::uuid[])`;

const PROGRESS = row({
  pages: 'number',
  fetched: 'number',
  inserted: 'number',
  updated: 'number',
  unchanged: 'number',
  removed: 'number',
});

export type SyncProgress = RowOf<typeof PROGRESS>;

const STORED_RUN = row({
  ...PROGRESS,
  id: 'string',
  accountId: 'string',
  status: column<SyncRunStatus>('string'),
  trigger: column<SyncTrigger>('string'),
  /** A first sync of an account already holding transactions: the API's trigger `reconnected`. */
  reconnected: 'boolean',
  windowFrom: 'string?',
  windowBefore: 'string?',
  errorCode: 'string?',
  errorMessage: 'string?',
  errorDetails: 'json?',
  /** Attempts started (claims): more than one when an attempt failed, or its worker died. */
  attempts: 'number',
  /** While running after a failed attempt: when the next one starts (ISO text). */
  nextAttemptAt: 'string?',
  queuedAt: 'string',
  startedAt: 'string?',
  finishedAt: 'string?',
});

/** A run as the API shows it (timestamps as ISO text). */
export type StoredSyncRun = RowOf<typeof STORED_RUN>;

const OPENED_RUN = row({ id: 'string', accountId: 'string', created: 'boolean' });

const CLAIMED_RUN = row({
  id: 'string',
  /** The fencing token every later write of this worker presents. */
  claim: 'number',
  merchantId: 'string',
  accountId: 'string',
  trigger: column<SyncTrigger>('string'),
  reconnected: 'boolean',
  windowFrom: 'Date?',
  windowBefore: 'Date?',
});

/** A run as its worker claimed it. */
export type ClaimedRun = RowOf<typeof CLAIMED_RUN>;

/** A run as it ended: its progress, and the upstream tracing id its failure keeps (any attempt's). */
const FINISHED_RUN = row({ ...PROGRESS, tracingId: 'string?' });
export type FinishedRun = RowOf<typeof FINISHED_RUN>;

/** The new error details ($n, JSON or null), with an earlier attempt's tracing id when they have none. */
const KEEP_TRACING_ID = (n: string) => `CASE
    WHEN ${n}::jsonb IS NULL THEN NULL
    WHEN ${n}::jsonb ->> 'tracingId' IS NULL AND error_details ->> 'tracingId' IS NOT NULL
      THEN ${n}::jsonb || jsonb_build_object('tracingId', error_details ->> 'tracingId')
    ELSE ${n}::jsonb END`;

export const SYNC_RUN_SQL = {
  open: sqlStatement('sync-runs.open', OPEN_RUNS, OPENED_RUN),
  active: sqlStatement(
    'sync-runs.active',
    `SELECT id, account_id AS "accountId", false AS created FROM sync_runs
        WHERE active_account_id = ANY($1::uuid[])`,
    OPENED_RUN,
  ),
  claim: sqlStatement(
    'sync-runs.claim',
    `UPDATE sync_runs SET status = 'RUNNING', started_at = COALESCE(started_at, now()),
          pages = 0, fetched = 0, unchanged = 0, checkpoint = NULL, next_attempt_at = NULL,
          claim = claim + 1, updated_at = now()
        WHERE id = $1::uuid AND status IN ('QUEUED', 'RUNNING')
        RETURNING id, claim, merchant_id AS "merchantId", account_id AS "accountId", trigger, reconnected,
          window_from AS "windowFrom", window_before AS "windowBefore"`,
    CLAIMED_RUN,
  ),
  setWindow: sqlStatement(
    'sync-runs.set-window',
    `UPDATE sync_runs SET window_from = $2, window_before = $3,
          reconnected = (trigger = 'INITIAL' AND $5::boolean), updated_at = now()
        WHERE id = $1::uuid AND status = 'RUNNING' AND claim = $4 RETURNING reconnected`,
    { reconnected: 'boolean' },
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
  finish: sqlStatement(
    'sync-runs.finish',
    `UPDATE sync_runs SET status = $2::sync_run_status, active_account_id = NULL, finished_at = now(),
          removed = removed + $3, error_code = $4, error_message = $5,
          error_details = ${KEEP_TRACING_ID('$6')}, next_attempt_at = NULL, updated_at = now()
        WHERE id = $1::uuid AND status = 'RUNNING' AND claim = $7
        RETURNING pages, fetched, inserted, updated, unchanged, removed,
          error_details ->> 'tracingId' AS "tracingId"`,
    FINISHED_RUN,
  ),
  trimHistory: sqlStatement(
    'sync-runs.trim-history',
    `DELETE FROM sync_runs WHERE account_id = $1 AND active_account_id IS NULL
          AND id < (SELECT id FROM sync_runs WHERE account_id = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`,
  ),
  findForCaller: sqlStatement(
    'sync-runs.find-for-caller',
    `SELECT ${RUN_COLUMNS} FROM sync_runs r JOIN accounts a ON a.id = r.account_id
        WHERE r.id = $1::uuid AND r.merchant_id = $2::uuid AND a.merchant_id = $2::uuid
          AND ($3::uuid IS NULL OR a.user_id = $3::uuid)`,
    STORED_RUN,
  ),
  pageForAccount: sqlStatement(
    'sync-runs.page-for-account',
    `SELECT a.id AS found, r.* FROM accounts a
        LEFT JOIN LATERAL (SELECT ${RUN_COLUMNS} FROM sync_runs r
          WHERE r.account_id = a.id AND r.merchant_id = a.merchant_id
            AND ($4::uuid IS NULL OR r.id < $4::uuid)
          ORDER BY r.id DESC LIMIT $3) r ON true
        WHERE a.id = $1::uuid AND a.merchant_id = $2::uuid AND ($5::uuid IS NULL OR a.user_id = $5::uuid)`,
    { found: 'string', ...outerJoined(STORED_RUN) },
  ),
  findForTracingLookup: sqlStatement(
    'sync-runs.find-for-tracing-lookup',
    // Each way in by its own index (the tracing id's partial expression index, the primary key), so a
    // merchant with many runs is never scanned; the few found are then ordered.
    `SELECT ${RUN_COLUMNS} FROM sync_runs r
        WHERE r.merchant_id = $1::uuid AND r.id IN (
          SELECT id FROM sync_runs WHERE merchant_id = $1::uuid AND error_details IS NOT NULL
            AND (error_details ->> 'tracingId') = $2::text
          UNION ALL
          SELECT id FROM sync_runs WHERE merchant_id = $1::uuid AND request_id = $2::text
          UNION ALL
          SELECT id FROM sync_runs WHERE id = $3::uuid AND merchant_id = $1::uuid
          UNION ALL
          -- A run any of whose upstream calls the upstream answered with it (the call log's index).
          SELECT sync_run_id FROM upstream_calls WHERE merchant_id = $1::uuid AND tracing_id = $2::text
            AND sync_run_id IS NOT NULL)
        ORDER BY r.id DESC LIMIT $4`,
    STORED_RUN,
  ),
  idleActive: sqlStatement(
    'sync-runs.idle-active',
    `SELECT id, merchant_id AS "merchantId", account_id AS "accountId" FROM sync_runs
        WHERE active_account_id IS NOT NULL AND updated_at < now() - make_interval(secs => $1::double precision)
          AND ($3::uuid IS NULL OR id > $3::uuid)
        ORDER BY id LIMIT $2`,
    { id: 'string', merchantId: 'string', accountId: 'string' },
  ),
};
