import { row, type RowOf, sqlStatement } from '#libs/database';
import type { UpstreamErrorKind } from '#libs/upstream-client';

/**
 * The attempts that count as errors of an institution: the bank's or the upstream's failures, whoever
 * asked. INSTITUTION: the bank failed behind the upstream (424); UNAVAILABLE: a 5xx or a 408, or no answer
 * at all (a timeout, a refused or dropped connection, a call the bank's open breaker kept from being
 * sent); RATE_LIMITED: a 429; PROTOCOL: a 2xx the client could not read. Not counted: refusals of what we
 * or the merchant asked (CALLER, AUTH, NOT_FOUND, FORBIDDEN), the consent's end (CONSENT_*), and ERROR
 * (the caller gave up, or a fault of ours before any answer).
 */
export const INSTITUTION_ERROR_KINDS = [
  'INSTITUTION',
  'UNAVAILABLE',
  'RATE_LIMITED',
  'PROTOCOL',
] as const satisfies readonly UpstreamErrorKind[];

/** Which percentile of `duration_ms` the figures give, by percentile_disc: a duration one attempt took. */
export const LATENCY_PERCENTILE = 0.95;

const ERRORS = `u.error_code IN (${INSTITUTION_ERROR_KINDS.map((kind) => `'${kind}'`).join(', ')})`;

const FIGURES = `count(*)::int AS calls, count(*) FILTER (WHERE failed)::int AS errors,
    percentile_disc(${LATENCY_PERCENTILE}) WITHIN GROUP (ORDER BY duration_ms) AS "p95DurationMs"`;

/**
 * The attempts of `calls` (a WHERE on `upstream_calls u`), each an error or not, with its bucket ($3).
 * One still (or left) in flight has no outcome or duration yet: it does not count.
 */
const attempts = (calls: string, bucketed: boolean) => `
  SELECT u.institution_id, u.duration_ms, ${ERRORS} AS failed
    ${bucketed ? ", date_trunc($3, u.at AT TIME ZONE 'UTC') AS bucket" : ''}
  FROM upstream_calls u
  WHERE u.institution_id IS NOT NULL AND u.error_code IS DISTINCT FROM 'IN_FLIGHT' AND ${calls}`;

/**
 * Every attempt counts once (retries too; the log has no other kind of call): `calls`, of which `errors`
 * (INSTITUTION_ERROR_KINDS), and the 95th percentile of their durations. By institution over the whole
 * range (no `start`), then by bucket (the UTC hour or day `date_trunc($3)` starts at) and institution.
 */
const health = (calls: string, { bucketed } = { bucketed: true }) => `
  WITH attempts AS (${attempts(calls, bucketed)})
  SELECT ${bucketed ? `to_char(bucket, 'YYYY-MM-DD"T"HH24:MI:SS"Z"')` : 'NULL::text'} AS start,
    institution_id AS "institutionId", ${FIGURES}
  FROM attempts
  GROUP BY ${bucketed ? 'GROUPING SETS ((institution_id), (bucket, institution_id))' : 'institution_id'}
  ORDER BY ${bucketed ? 'bucket NULLS FIRST, ' : ''}institution_id`;

const HEALTH_ROW = row({
  /** Null on a row of the whole range. */
  start: 'string?',
  institutionId: 'string!',
  calls: 'number',
  errors: 'number',
  p95DurationMs: 'number',
});

const IN_RANGE = 'u.at >= $1 AND u.at < $2';

export const INSTITUTION_HEALTH_SQL = {
  /** A merchant's calls (on `upstream_calls (merchant_id, at)`). */
  ofMerchant: sqlStatement('upstream-calls.health', health(`u.merchant_id = $4 AND ${IN_RANGE}`), HEALTH_ROW),
  /** Every merchant's: an analyst's scan of the range, not a page's read. */
  acrossMerchants: sqlStatement('upstream-calls.health-all', health(IN_RANGE), HEALTH_ROW),
  /** The worker's gauges: every merchant's calls since $1, by institution (on `upstream_calls (at)`). */
  since: sqlStatement('upstream-calls.health-since', health('u.at >= $1', { bucketed: false }), HEALTH_ROW),
  /** The same of the institutions not named in $2, together: the gauges' `other`. */
  sinceExcept: sqlStatement(
    'upstream-calls.health-since-except',
    `WITH attempts AS (${attempts('u.at >= $1 AND NOT (u.institution_id = ANY ($2::text[]))', false)})
    SELECT ${FIGURES} FROM attempts`,
    { calls: 'number', errors: 'number', p95DurationMs: 'number?' },
  ),
};

export type HealthRow = RowOf<typeof HEALTH_ROW>;
