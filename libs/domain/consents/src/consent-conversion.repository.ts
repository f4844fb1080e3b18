import { Injectable } from '@nestjs/common';
import type { MerchantId, OperatorCaller } from '#libs/context';
import { DatabasePool, row, type RowOf, sqlStatement } from '#libs/database';
import { AUTHORISATION_ABANDONED } from './consent-status.js';

/**
 * Connection conversion, Plaid's funnel: the data consents started on a day (UTC) at an institution, and
 * what became of them. Each consent is counted once, in the cohort of the day it was started, under the
 * one outcome it reached: `authorised` (it was AUTHORIZED at some point, whatever came after),
 * else `rejected` (the user or the bank said no), `abandoned` (the user never came back from the bank:
 * AUTHORISATION_ABANDONED), `failed` (any other end before authorisation) or `pending` (still awaiting
 * the user). `firstSynced`: an account of the consent finished a first sync after the authorisation. The
 * medians are seconds from the start; null when no consent of the row got there.
 */
const conversion = (consents: string, { byDay } = { byDay: true }) => `
  WITH started AS (
    SELECT c.id, c.institution_id, c.created_at, c.status, c.last_error_code,
      (c.created_at AT TIME ZONE 'UTC')::date AS day,
      (SELECT min(h.changed_at) FROM consent_status_changes h
        WHERE h.consent_id = c.id AND h.to_status = 'AUTHORIZED') AS authorised_at
    FROM consents c
    WHERE c.kind = 'ACCOUNT' AND ${consents}
  ), reached AS (
    SELECT s.*,
      (SELECT min(r.finished_at) FROM accounts a JOIN sync_runs r ON r.account_id = a.id
        WHERE a.consent_id = s.id AND r.trigger = 'INITIAL' AND r.status = 'SUCCEEDED'
          AND r.finished_at >= s.authorised_at) AS first_synced_at,
      CASE WHEN s.authorised_at IS NOT NULL THEN 'authorised'
        WHEN s.status = 'REJECTED' THEN 'rejected'
        WHEN s.last_error_code = '${AUTHORISATION_ABANDONED}' THEN 'abandoned'
        WHEN s.status LIKE 'AWAITING%' THEN 'pending'
        ELSE 'failed' END AS outcome
    FROM started s
  )
  SELECT ${byDay ? "to_char(day, 'YYYY-MM-DD')" : 'NULL::text'} AS day, institution_id AS "institutionId",
    count(*)::int AS started,
    count(*) FILTER (WHERE outcome = 'authorised')::int AS authorised,
    count(*) FILTER (WHERE outcome = 'rejected')::int AS rejected,
    count(*) FILTER (WHERE outcome = 'abandoned')::int AS abandoned,
    count(*) FILTER (WHERE outcome = 'failed')::int AS failed,
    count(*) FILTER (WHERE outcome = 'pending')::int AS pending,
    count(first_synced_at)::int AS "firstSynced",
    round(percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM authorised_at - created_at)))::int
      AS "medianSecondsToAuthorised",
    round(percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM first_synced_at - created_at)))::int
      AS "medianSecondsToFirstSync"
  FROM reached
  GROUP BY ${byDay ? 'GROUPING SETS ((institution_id), (day, institution_id))' : 'institution_id'}
  ORDER BY ${byDay ? 'day NULLS FIRST, ' : ''}institution_id`;

const CONVERSION_ROW = row({
  /** Null on a row of the whole range's totals. */
  day: 'string?',
  institutionId: 'string',
  started: 'number',
  authorised: 'number',
  rejected: 'number',
  abandoned: 'number',
  failed: 'number',
  pending: 'number',
  firstSynced: 'number',
  medianSecondsToAuthorised: 'number?',
  medianSecondsToFirstSync: 'number?',
});

type Row = RowOf<typeof CONVERSION_ROW>;
/** The consents of the whole range at one institution. */
export type ConversionCounts = Omit<Row, 'day'>;
/** One day's cohort at one institution. */
export type ConversionDay = ConversionCounts & { day: string };

export interface ConversionFigures {
  institutions: ConversionCounts[];
  days: ConversionDay[];
}

/** The statement's two grouping sets apart: the range's totals (no day), then the days. */
function figuresOf(rows: Row[]): ConversionFigures {
  const figures: ConversionFigures = { institutions: [], days: [] };
  for (const { day, ...counts } of rows) {
    if (day === null) figures.institutions.push(counts);
    else figures.days.push({ day, ...counts });
  }
  return figures;
}

const IN_RANGE = 'c.created_at >= $1::date AND c.created_at < $2::date + 1';

export const CONSENT_CONVERSION_SQL = {
  ofMerchant: sqlStatement(
    'consents.conversion',
    conversion(`c.merchant_id = $3 AND ${IN_RANGE}`),
    CONVERSION_ROW,
  ),
  acrossMerchants: sqlStatement('consents.conversion-all', conversion(IN_RANGE), CONVERSION_ROW),
  /** The worker's gauge: every merchant's consents started since $1, by institution (`consents (created_at)`). */
  startedSince: sqlStatement(
    'consents.conversion-since',
    conversion('c.created_at >= $1', { byDay: false }),
    CONVERSION_ROW,
  ),
};

/** Days are UTC calendar days, `from` and `to` included (YYYY-MM-DD). */
export interface ConversionRange {
  from: string;
  to: string;
}

/**
 * Reads the conversion of data consents: a merchant's own (on `consents (merchant_id, created_at)`), or
 * every merchant's for the operator (a scan of the range's consents: an analyst's query, not a page's).
 */
@Injectable()
export class ConsentConversionRepository {
  constructor(private readonly database: DatabasePool) {}

  async ofMerchant(merchantId: MerchantId, range: ConversionRange): Promise<ConversionFigures> {
    return figuresOf(
      await this.database.rows({
        ...CONSENT_CONVERSION_SQL.ofMerchant,
        values: [range.from, range.to, merchantId],
      }),
    );
  }

  /** Every merchant's consents started since `since`, by institution: for the worker's metrics, no merchant in them. */
  async startedSince(since: Date): Promise<ConversionCounts[]> {
    const rows = await this.database.rows({ ...CONSENT_CONVERSION_SQL.startedSince, values: [since] });
    return figuresOf(rows).institutions;
  }

  async acrossMerchants(_operator: OperatorCaller, range: ConversionRange): Promise<ConversionFigures> {
    return figuresOf(
      await this.database.rows({ ...CONSENT_CONVERSION_SQL.acrossMerchants, values: [range.from, range.to] }),
    );
  }
}
