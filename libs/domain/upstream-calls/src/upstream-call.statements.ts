import { row, type RowOf, sqlStatement } from '#libs/database';

const CALL_ROW = row({
  id: 'string',
  operation: 'string',
  institutionId: 'string?',
  status: 'number?',
  errorCode: 'string?',
  durationMs: 'number',
  attempt: 'number',
  tracingId: 'string?',
  at: 'string',
  consentId: 'string?',
  syncRunId: 'string?',
  paymentId: 'string?',
});

const CALL_COLUMNS = `u.id::text AS id, u.operation, u.institution_id AS "institutionId", u.status,
  u.error_code AS "errorCode", u.duration_ms AS "durationMs", u.attempt, u.tracing_id AS "tracingId",
  to_char(u.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
  u.consent_id::text AS "consentId", u.sync_run_id::text AS "syncRunId", u.payment_id::text AS "paymentId"`;

/** A page of one parent's calls, newest first, after the keyset `$3` (an id; null: the first page). */
const pageOf = (parent: 'consent_id' | 'sync_run_id' | 'payment_id') =>
  `SELECT ${CALL_COLUMNS} FROM upstream_calls u
    WHERE u.merchant_id = $1 AND u.${parent} = $2 AND ($3::bigint IS NULL OR u.id < $3::bigint)
    ORDER BY u.id DESC LIMIT $4`;

/**
 * In a statement's FROM: the statement's own transaction (a statement sent alone is one) commits without
 * waiting for its WAL flush, as `SET LOCAL synchronous_commit = off` would make it, without the three
 * more round trips of a transaction block around it (BEGIN, SET LOCAL, COMMIT). Postgres evaluates it
 * though no column of it is read: a volatile function's output is never planned away.
 */
const UNFLUSHED = `(SELECT set_config('synchronous_commit', 'off', true)) AS unflushed`;

export const UPSTREAM_CALL_SQL = {
  /**
   * A batch of attempts in one statement, as arrays (one per column). Rows of a merchant removed meanwhile
   * are left out rather than failing the batch on the foreign key.
   */
  insertBatch: sqlStatement(
    'upstream-calls.insert-batch',
    `INSERT INTO upstream_calls (merchant_id, consent_id, sync_run_id, payment_id, operation, institution_id,
        status, error_code, duration_ms, attempt, tracing_id, at)
      SELECT r.* FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[],
          $7::int[], $8::text[], $9::int[], $10::int[], $11::text[], $12::timestamptz[])
        AS r(merchant_id, consent_id, sync_run_id, payment_id, operation, institution_id, status, error_code,
          duration_ms, attempt, tracing_id, at)
      WHERE EXISTS (SELECT 1 FROM merchants m WHERE m.id = r.merchant_id)`,
  ),
  /**
   * One attempt's entry, written before it is sent (see UpstreamCallRecorder): its id, or none when the
   * merchant was removed meanwhile. Committed without waiting for its WAL flush (UNFLUSHED).
   */
  insertOne: sqlStatement(
    'upstream-calls.insert-one',
    `INSERT INTO upstream_calls (merchant_id, consent_id, sync_run_id, payment_id, operation, institution_id,
        status, error_code, duration_ms, attempt, tracing_id, at)
      SELECT $1::uuid, $2::uuid, $3::uuid, $4::uuid, $5::text, $6::text, $7::int, $8::text, $9::int,
          $10::int, $11::text, $12::timestamptz
      FROM ${UNFLUSHED}
      WHERE EXISTS (SELECT 1 FROM merchants m WHERE m.id = $1::uuid)
      RETURNING id::text AS id`,
    { id: 'string' },
  ),
  /** What an attempt written before it was sent came to; committed as insertOne is. */
  complete: sqlStatement(
    'upstream-calls.complete',
    `UPDATE upstream_calls SET status = $2::int, error_code = $3::text, duration_ms = $4::int,
        tracing_id = $5::text
      FROM ${UNFLUSHED}
      WHERE id = $1::bigint`,
  ),
  consentPage: sqlStatement('upstream-calls.consent-page', pageOf('consent_id'), CALL_ROW),
  syncRunPage: sqlStatement('upstream-calls.sync-run-page', pageOf('sync_run_id'), CALL_ROW),
  paymentPage: sqlStatement('upstream-calls.payment-page', pageOf('payment_id'), CALL_ROW),
  /** Whether the merchant has the consent, run or payment at all: an empty page of another's is a 404. */
  parentExists: sqlStatement(
    'upstream-calls.parent-exists',
    `SELECT EXISTS (SELECT 1 FROM consents WHERE id = $2 AND merchant_id = $1 AND $3 = 'consent')
        OR EXISTS (SELECT 1 FROM sync_runs WHERE id = $2 AND merchant_id = $1 AND $3 = 'sync-run')
        OR EXISTS (SELECT 1 FROM payments WHERE id = $2 AND merchant_id = $1 AND $3 = 'payment') AS found`,
    { found: 'boolean' },
  ),
  deleteBefore: sqlStatement(
    'upstream-calls.delete-before',
    `WITH gone AS (DELETE FROM upstream_calls WHERE id IN (
        SELECT id FROM upstream_calls WHERE at < $1 ORDER BY at LIMIT $2) RETURNING 1)
      SELECT count(*)::int AS deleted FROM gone`,
    { deleted: 'number' },
  ),
};

/** One attempt as the API serves it (`at` an ISO instant, `id` the keyset). */
export type UpstreamCallRow = RowOf<typeof CALL_ROW>;
