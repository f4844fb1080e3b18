import { Injectable } from '@nestjs/common';
import type { MerchantId, OperatorCaller } from '#libs/context';
import { DatabasePool, row, type RowOf, sqlStatement } from '#libs/database';
import { CONNECT_ENDS, type ConnectEvent } from './connect-funnel.js';

/** The SQL list of the ends, for `IN (…)`: the words are ours, never a caller's. */
const ENDS = CONNECT_ENDS.map((end) => `'${end}'`).join(', ');

/**
 * What a report changes on its attempt `s`: $3 the bank chosen, $4 the consent, $5 the event, $6 the reason.
 * Steps only ever become reached, the first end stands, and the last error before it is kept, filed under
 * the furthest step the attempt had reached when its report arrived: a report sent again, or late, after
 * the end changes nothing.
 */
const REPORTED = `
  last_report_at = now(),
  institution_id = coalesce($3, s.institution_id),
  consent_id = coalesce($4::uuid, s.consent_id),
  searched = s.searched OR $5::text = 'searched',
  chose = s.chose OR $5::text = 'chose',
  sent_to_bank = s.sent_to_bank OR $5::text = 'sentToBank',
  returned = s.returned OR $5::text = 'returned',
  outcome = coalesce(s.outcome, CASE WHEN $5::text IN (${ENDS}) THEN $5::text END),
  error_step = CASE WHEN $6::text IS NULL OR s.outcome IS NOT NULL THEN s.error_step
    WHEN s.returned THEN 'returned' WHEN s.sent_to_bank THEN 'sentToBank' WHEN s.chose THEN 'chose'
    WHEN s.searched THEN 'searched' ELSE 'opened' END,
  error_reason = CASE WHEN s.outcome IS NOT NULL THEN s.error_reason ELSE coalesce($6, s.error_reason) END`;

/**
 * The attempts opened in a range of days (UTC), counted by day and bank (the last one chosen; null for attempts
 * that chose none): how many reached each step and how each ended. A attempt with no end quiet since $3 is
 * abandoned, as one whose tab was closed; one quiet for less is in progress. $1, $2: the days; $3: the
 * quiet cut-off.
 */
const funnel = (scope: string) => `
  WITH scoped AS (
    SELECT (opened_at AT TIME ZONE 'UTC')::date AS day, institution_id, searched, chose, sent_to_bank,
      returned, CASE WHEN outcome IS NULL AND last_report_at < $3 THEN 'abandoned'
        WHEN outcome = 'closed' THEN 'abandoned' ELSE outcome END AS ended
    FROM connect_attempts
    WHERE opened_at >= $1::date AND opened_at < $2::date + 1 AND ${scope}
  )
  SELECT to_char(day, 'YYYY-MM-DD') AS day, institution_id AS "institutionId", GROUPING(day) = 1 AS total,
    count(*)::int AS opened,
    count(*) FILTER (WHERE searched)::int AS searched,
    count(*) FILTER (WHERE chose)::int AS chose,
    count(*) FILTER (WHERE sent_to_bank)::int AS "sentToBank",
    count(*) FILTER (WHERE returned)::int AS returned,
    count(*) FILTER (WHERE ended = 'connected')::int AS connected,
    count(*) FILTER (WHERE ended = 'declined')::int AS declined,
    count(*) FILTER (WHERE ended = 'cancelled')::int AS cancelled,
    count(*) FILTER (WHERE ended = 'failed')::int AS failed,
    count(*) FILTER (WHERE ended = 'abandoned')::int AS abandoned,
    count(*) FILTER (WHERE ended IS NULL)::int AS "inProgress"
  FROM scoped
  GROUP BY GROUPING SETS ((institution_id), (day, institution_id))
  ORDER BY day NULLS FIRST, institution_id NULLS FIRST`;

/** The errors the same attempts met last, by the step they were met at and their code. */
const errors = (scope: string) => `
  WITH scoped AS (
    SELECT (opened_at AT TIME ZONE 'UTC')::date AS day, institution_id, error_step, error_reason
    FROM connect_attempts
    WHERE opened_at >= $1::date AND opened_at < $2::date + 1 AND error_reason IS NOT NULL AND ${scope}
  )
  SELECT to_char(day, 'YYYY-MM-DD') AS day, institution_id AS "institutionId", GROUPING(day) = 1 AS total,
    error_step AS step, error_reason AS reason, count(*)::int AS attempts
  FROM scoped
  GROUP BY GROUPING SETS ((institution_id, error_step, error_reason), (day, institution_id, error_step, error_reason))
  ORDER BY day NULLS FIRST, institution_id NULLS FIRST, attempts DESC, error_step, error_reason`;

const FUNNEL_ROW = row({
  day: 'string?',
  institutionId: 'string?',
  total: 'boolean',
  opened: 'number',
  searched: 'number',
  chose: 'number',
  sentToBank: 'number',
  returned: 'number',
  connected: 'number',
  declined: 'number',
  cancelled: 'number',
  failed: 'number',
  abandoned: 'number',
  inProgress: 'number',
});

const ERROR_ROW = row({
  day: 'string?',
  institutionId: 'string?',
  total: 'boolean',
  // Only attempts with an error are read, and an error always has its step.
  step: 'string!',
  reason: 'string!',
  attempts: 'number',
});

/** The merchant: the funnel's fourth value, the errors' third (they need no cut-off). */
const ofMerchant = (n: number) => `merchant_id = $${n}`;
const ALL = 'true';

export const CONNECT_FUNNEL_SQL = {
  /** A report naming its attempt: the attempt made by its first report (any report: one may be lost). */
  report: sqlStatement(
    'connect-funnel.report',
    'INSERT INTO connect_attempts (id, merchant_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
  ),
  reportOnAttempt: sqlStatement(
    'connect-funnel.report-on-attempt',
    `UPDATE connect_attempts s SET ${REPORTED} WHERE s.id = $1 AND s.merchant_id = $2`,
  ),
  /** A report from the page the bank sent the user back to: it knows the consent, not the attempt. */
  reportOnConsent: sqlStatement(
    'connect-funnel.report-on-consent',
    `UPDATE connect_attempts s SET ${REPORTED} WHERE s.consent_id = $1 AND s.merchant_id = $2`,
  ),
  ofMerchant: sqlStatement('connect-funnel.of-merchant', funnel(ofMerchant(4)), FUNNEL_ROW),
  errorsOfMerchant: sqlStatement('connect-funnel.errors-of-merchant', errors(ofMerchant(3)), ERROR_ROW),
  acrossMerchants: sqlStatement('connect-funnel.all', funnel(ALL), FUNNEL_ROW),
  /** Retention, oldest first (`connect_attempts (opened_at)`). */
  deleteOpenedBefore: sqlStatement(
    'connect-funnel.delete-opened-before',
    `WITH gone AS (DELETE FROM connect_attempts WHERE id IN (
        SELECT id FROM connect_attempts WHERE opened_at < $1 ORDER BY opened_at LIMIT $2) RETURNING 1)
      SELECT count(*)::int AS deleted FROM gone`,
    { deleted: 'number' },
  ),
  errorsAcrossMerchants: sqlStatement('connect-funnel.errors-all', errors(ALL), ERROR_ROW),
};

/** What a report says of an attempt: the attempt by its id, or, back from the bank, by its consent. */
export interface ConnectReport {
  attempt: { id: string } | { consentId: string };
  event: ConnectEvent;
  institutionId?: string;
  consentId?: string;
  reason?: string;
}

export type FunnelCounts = Omit<RowOf<typeof FUNNEL_ROW>, 'day' | 'total'>;
export type FunnelError = Pick<RowOf<typeof ERROR_ROW>, 'step' | 'reason' | 'attempts'>;
export type FunnelRow = FunnelCounts & { errors: FunnelError[] };
export type FunnelDay = FunnelRow & { day: string };

export interface FunnelFigures {
  institutions: FunnelRow[];
  days: FunnelDay[];
}

/** Days are UTC calendar days, both included; attempts with no end quiet since `quietSince` are abandoned. */
export interface FunnelRange {
  from: string;
  to: string;
  quietSince: Date;
}

/** The two statements' rows as one answer: each row of counts with the errors of its day and bank. */
function figuresOf(counts: RowOf<typeof FUNNEL_ROW>[], errorRows: RowOf<typeof ERROR_ROW>[]): FunnelFigures {
  const key = (r: { total: boolean; day: string | null; institutionId: string | null }) =>
    `${r.total ? '' : r.day}|${r.institutionId ?? ''}`;
  const errorsOf = new Map<string, FunnelError[]>();
  for (const { step, reason, attempts, ...at } of errorRows) {
    const list = errorsOf.get(key(at)) ?? [];
    list.push({ step, reason, attempts });
    errorsOf.set(key(at), list);
  }
  const figures: FunnelFigures = { institutions: [], days: [] };
  for (const { day, total, ...rest } of counts) {
    const figure = {
      ...rest,
      errors: errorsOf.get(key({ total, day, institutionId: rest.institutionId })) ?? [],
    };
    if (total || day === null) figures.institutions.push(figure);
    else figures.days.push({ day, ...figure });
  }
  return figures;
}

/**
 * Owns `connect_attempts`: the attempts of `<bff-connect>` as their reports build them, and the funnel read
 * from them (a merchant's on `(merchant_id, opened_at)`; every merchant's for the operator, a scan of the
 * range's attempts: an analyst's query, not a page's).
 */
@Injectable()
export class ConnectFunnelRepository {
  constructor(private readonly database: DatabasePool) {}

  /** Files a report on its attempt; a attempt of another merchant's (an id guessed or reused) is left as it is. */
  async report(merchantId: MerchantId, report: ConnectReport): Promise<void> {
    const values = [
      report.institutionId ?? null,
      report.consentId ?? null,
      report.event,
      report.reason ?? null,
    ];
    const { attempt } = report;
    if ('consentId' in attempt) {
      await this.database.rows({
        ...CONNECT_FUNNEL_SQL.reportOnConsent,
        values: [attempt.consentId, merchantId, ...values],
      });
      return;
    }
    // Two statements, no transaction: the row the first makes is true on its own (the attempt was opened).
    await this.database.rows({ ...CONNECT_FUNNEL_SQL.report, values: [attempt.id, merchantId] });
    await this.database.rows({
      ...CONNECT_FUNNEL_SQL.reportOnAttempt,
      values: [attempt.id, merchantId, ...values],
    });
  }

  async deleteOpenedBefore(cutoff: Date, limit: number): Promise<number> {
    const [row] = await this.database.rows({
      ...CONNECT_FUNNEL_SQL.deleteOpenedBefore,
      values: [cutoff, limit],
    });
    return row.deleted;
  }

  async ofMerchant(merchantId: MerchantId, range: FunnelRange): Promise<FunnelFigures> {
    const [counts, errorRows] = await Promise.all([
      this.database.rows({
        ...CONNECT_FUNNEL_SQL.ofMerchant,
        values: [range.from, range.to, range.quietSince, merchantId],
      }),
      this.database.rows({
        ...CONNECT_FUNNEL_SQL.errorsOfMerchant,
        values: [range.from, range.to, merchantId],
      }),
    ]);
    return figuresOf(counts, errorRows);
  }

  async acrossMerchants(_operator: OperatorCaller, range: FunnelRange): Promise<FunnelFigures> {
    const [counts, errorRows] = await Promise.all([
      this.database.rows({
        ...CONNECT_FUNNEL_SQL.acrossMerchants,
        values: [range.from, range.to, range.quietSince],
      }),
      this.database.rows({ ...CONNECT_FUNNEL_SQL.errorsAcrossMerchants, values: [range.from, range.to] }),
    ]);
    return figuresOf(counts, errorRows);
  }
}
