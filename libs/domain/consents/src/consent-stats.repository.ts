import { Injectable } from '@nestjs/common';
import { column, DatabasePool, row, type RowOf, sqlStatement } from '#libs/database';
import { ConsentStatus } from './consent-status.js';

const CONSENT_COUNT_ROW = row({
  status: 'string',
  kind: 'string',
  consents: 'number',
});

export type ConsentCount = RowOf<typeof CONSENT_COUNT_ROW>;

/** Where a data consent that expires soon stands with its renewal. */
export type RenewalState = 'requested' | 'not_requested' | 'not_renewable';

const EXPIRING_COUNT_ROW = row({
  /** Expires within a day (else within the week). */
  withinDay: 'boolean',
  renewal: column<RenewalState>('string'),
  consents: 'number',
});

export type ExpiringCount = RowOf<typeof EXPIRING_COUNT_ROW>;

/**
 * Every consent by status and kind: an index-only scan of `consents (status, kind, expires_at, id)`
 * or the table, one row per status and kind back.
 */
const BY_STATUS = `SELECT status, kind::text AS kind, count(*)::int AS consents FROM consents GROUP BY 1, 2`;

/**
 * Data consents expiring within the week and not renewed (a renewal moves the expiry out of it): two
 * ranges of the same index, one per status that still counts as usable, and the heap only for the week's
 * consents (about 1/13 of the live ones) to tell whether a re-authorisation can renew them: the expiry
 * scan asks for one of a redirect consent the bank has not refused to extend.
 */
const EXPIRING = `SELECT c.expires_at <= $1::timestamptz + interval '1 day' AS "withinDay",
    CASE WHEN c.status = $3 THEN 'requested'
      WHEN c.flow = 'REDIRECT' AND c.reauthorisation_not_extended_at IS NULL THEN 'not_requested'
      ELSE 'not_renewable' END AS renewal,
    count(*)::int AS consents
  FROM consents c
  WHERE c.kind = 'ACCOUNT' AND c.status IN ($2, $3)
    AND c.expires_at > $1::timestamptz AND c.expires_at <= $1::timestamptz + interval '7 days'
  GROUP BY 1, 2`;

export const CONSENT_STATS_SQL = {
  byStatus: sqlStatement('consents.count-by-status', BY_STATUS, CONSENT_COUNT_ROW),
  expiringWithinWeek: sqlStatement('consents.expiring-within-week', EXPIRING, EXPIRING_COUNT_ROW),
};

/** Reads `consents` for the worker's metrics: aggregates on the lifecycle's index, never a row per consent. */
@Injectable()
export class ConsentStatsRepository {
  constructor(private readonly database: DatabasePool) {}

  byStatus(): Promise<ConsentCount[]> {
    return this.database.rows({
      ...CONSENT_STATS_SQL.byStatus,
      values: [],
    });
  }

  expiringWithinWeek(now: Date): Promise<ExpiringCount[]> {
    return this.database.rows({
      ...CONSENT_STATS_SQL.expiringWithinWeek,
      values: [now, ConsentStatus.Authorised, ConsentStatus.AwaitingReauthorisation],
    });
  }
}
