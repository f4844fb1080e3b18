import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { DatabasePool, row, type RowOf, sqlStatement } from '#libs/database';

/** A consent as the lifecycle jobs handle it. */
export interface LifecycleConsent {
  id: string;
  merchantId: string;
  upstreamConsentId: string;
  flow: string;
  status: string;
  expiresAt: Date | null;
  /** The merchant's sub-application, for the upstream calls. */
  subApplicationId: string | null;
  /** The user's id at the upstream, by which reconciliation lists the user's consents. */
  applicationUserId: string;
}

/** Where a scan ordered by expiry stopped: the last consent of its batch. */
export type ExpiryKeyset = Pick<LifecycleConsent, 'id' | 'expiresAt'>;

/** Greater than any uuid: a keyset starting at (t, MAX_UUID) begins just after t. */
const MAX_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
const MIN_UUID = '00000000-0000-0000-0000-000000000000';

export interface ConsentCounts {
  byStatus: Record<string, number>;
  byMerchant: { merchantId: string; merchantName: string; status: string; count: number }[];
}

const LIFECYCLE_COLUMNS = `c.id, c.merchant_id, c.upstream_consent_id, c.flow::text AS flow, c.status,
  c.expires_at, (SELECT m.sub_application_id FROM merchants m WHERE m.id = c.merchant_id) AS sub_application_id,
  (SELECT u.application_user_id FROM users u WHERE u.id = c.user_id) AS application_user_id`;

const LIFECYCLE_ROW = row({
  id: 'string',
  merchant_id: 'string',
  upstream_consent_id: 'string',
  flow: 'string',
  status: 'string',
  expires_at: 'Date?',
  sub_application_id: 'string?',
  application_user_id: 'string',
});

type Row = RowOf<typeof LIFECYCLE_ROW>;

/** Past expiry: one index range per status, merged in order (see pastExpiry). */
const pastExpiryRange = (status: string) => `(SELECT ${LIFECYCLE_COLUMNS} FROM consents c
        WHERE status = '${status}' AND kind = 'ACCOUNT' AND expires_at <= $1
          AND (expires_at, id) > ($2::timestamptz, $3::uuid)
        ORDER BY expires_at, id LIMIT $4)`;

export const CONSENT_LIFECYCLE_SQL = {
  expiringSoon: sqlStatement(
    'consent-lifecycle.expiring-soon',
    `SELECT ${LIFECYCLE_COLUMNS} FROM consents c
        WHERE status = 'AUTHORIZED' AND kind = 'ACCOUNT' AND expires_at <= $1
          AND (expires_at, id) > ($2::timestamptz, $3::uuid)
        ORDER BY expires_at, id LIMIT $4`,
    LIFECYCLE_ROW,
  ),
  pastExpiry: sqlStatement(
    'consent-lifecycle.past-expiry',
    `${pastExpiryRange('AUTHORIZED')} UNION ALL ${pastExpiryRange('AWAITING_RE_AUTHORIZATION')}
        ORDER BY expires_at, id LIMIT $4`,
    LIFECYCLE_ROW,
  ),
  abandonedVrp: sqlStatement(
    'consent-lifecycle.abandoned-vrp',
    `SELECT ${LIFECYCLE_COLUMNS} FROM consents c
        WHERE status = 'AWAITING_AUTHORIZATION' AND kind = 'VRP_SWEEPING' AND created_at < $1 AND id > $2
        ORDER BY id LIMIT $3`,
    LIFECYCLE_ROW,
  ),
  unreturnedRedirect: sqlStatement(
    'consent-lifecycle.unreturned-redirect',
    `SELECT ${LIFECYCLE_COLUMNS} FROM consents c
        WHERE status = 'AWAITING_AUTHORIZATION' AND kind = 'ACCOUNT' AND flow = 'REDIRECT'
          AND updated_at < $1 AND id > $2
        ORDER BY id LIMIT $3`,
    LIFECYCLE_ROW,
  ),
  leastRecentlyReconciled: sqlStatement(
    'consent-lifecycle.least-recently-reconciled',
    `SELECT ${LIFECYCLE_COLUMNS} FROM consents c
        WHERE status IN ('AUTHORIZED', 'AWAITING_RE_AUTHORIZATION') AND kind = 'ACCOUNT'
          AND (reconciled_at IS NULL OR reconciled_at < $1)
        ORDER BY reconciled_at NULLS FIRST, id LIMIT $2`,
    LIFECYCLE_ROW,
  ),
  awaitingEmbeddedOutcome: sqlStatement(
    'consent-lifecycle.awaiting-embedded-outcome',
    `SELECT id, merchant_id AS "merchantId" FROM consents
        WHERE status = 'AWAITING_AUTHORIZATION' AND flow = 'EMBEDDED' AND updated_at < $1 AND id > $2
        ORDER BY id LIMIT $3`,
    { id: 'string', merchantId: 'string' },
  ),
  reconciled: sqlStatement(
    'consent-lifecycle.reconciled',
    `UPDATE consents SET reconciled_at = $3 WHERE id = $2 AND merchant_id = $1`,
  ),
  counts: sqlStatement(
    undefined,
    `SELECT c.merchant_id, m.name, c.status, count(*)::int AS count
        FROM consents c JOIN merchants m ON m.id = c.merchant_id
        WHERE ($1::text IS NULL OR c.status = $1) AND ($2::timestamptz IS NULL OR c.expires_at < $2)
        GROUP BY c.merchant_id, m.name, c.status
        ORDER BY count(*) DESC, c.merchant_id, c.status`,
    { merchant_id: 'string', name: 'string', status: 'string', count: 'number' },
  ),
};

const toConsent = (r: Row): LifecycleConsent => ({
  id: r.id,
  merchantId: r.merchant_id,
  upstreamConsentId: r.upstream_consent_id,
  flow: r.flow,
  status: r.status,
  expiresAt: r.expires_at,
  subApplicationId: r.sub_application_id,
  applicationUserId: r.application_user_id,
});

/**
 * The lifecycle jobs' reads of `consents` (the status itself changes only in ConsentStateRepository), in
 * keyset-paged batches. They span merchants by design; each consent returned carries its merchant for the
 * writes that follow. The expiry scan's two reads walk `consents (status, kind, expires_at, id)` in expiry
 * order from where the last batch stopped, so a scan reads the consents it acts on and no others: its cost
 * follows the expiring set, not the table (paged by id instead, every batch filtered its way along the
 * primary key, and a scan read the whole table).
 */
@Injectable()
export class ConsentLifecycleRepository {
  constructor(private readonly db: DatabasePool) {}

  /** Authorised data consents expiring in (now, cutoff], in expiry order after `after`. */
  async expiringSoon(
    now: Date,
    cutoff: Date,
    after: ExpiryKeyset | undefined,
    limit: number,
  ): Promise<LifecycleConsent[]> {
    const rows = await this.db.rows({
      ...CONSENT_LIFECYCLE_SQL.expiringSoon,
      values: [cutoff, after?.expiresAt ?? now, after?.id ?? MAX_UUID, limit],
    });
    return rows.map(toConsent);
  }

  /**
   * Data consents past their expiry that still count as usable, in expiry order after `after`. One index
   * range per status, merged in order (a single `status IN (…)` range would come back unordered and be
   * sorted whole for every batch).
   */
  async pastExpiry(now: Date, after: ExpiryKeyset | undefined, limit: number): Promise<LifecycleConsent[]> {
    const rows = await this.db.rows({
      ...CONSENT_LIFECYCLE_SQL.pastExpiry,
      values: [now, after?.expiresAt ?? '-infinity', after?.id ?? MIN_UUID, limit],
    });
    return rows.map(toConsent);
  }

  /**
   * VRP consents still awaiting their first authorisation though made before `createdBefore`: the user
   * left the bank's page, and the callback's signed state has expired, so nothing can authorise them now.
   */
  async abandonedVrp(createdBefore: Date, afterId: string, limit: number): Promise<LifecycleConsent[]> {
    const rows = await this.db.rows({
      ...CONSENT_LIFECYCLE_SQL.abandonedVrp,
      values: [createdBefore, afterId, limit],
    });
    return rows.map(toConsent);
  }

  /**
   * Redirect data consents still awaiting the user's return from the bank, unchanged since before
   * `movedBefore`, after `afterId`.
   */
  async unreturnedRedirect(movedBefore: Date, afterId: string, limit: number): Promise<LifecycleConsent[]> {
    const rows = await this.db.rows({
      ...CONSENT_LIFECYCLE_SQL.unreturnedRedirect,
      values: [movedBefore, afterId, limit],
    });
    return rows.map(toConsent);
  }

  /** Data consents still in use (authorised, or awaiting re-authorisation) checked longest ago, for reconciliation. */
  async leastRecentlyReconciled(checkedBefore: Date, limit: number): Promise<LifecycleConsent[]> {
    const rows = await this.db.rows({
      ...CONSENT_LIFECYCLE_SQL.leastRecentlyReconciled,
      values: [checkedBefore, limit],
    });
    return rows.map(toConsent);
  }

  /**
   * Embedded consents that have waited for the bank's outcome since before `movedBefore`, after `afterId`:
   * their poll job should have settled them by now, unless Redis lost it.
   */
  async awaitingEmbeddedOutcome(
    movedBefore: Date,
    afterId: string,
    limit: number,
  ): Promise<{ id: string; merchantId: string }[]> {
    return this.db.rows({
      ...CONSENT_LIFECYCLE_SQL.awaitingEmbeddedOutcome,
      values: [movedBefore, afterId, limit],
    });
  }

  async markReconciled(merchantId: MerchantId, consentId: string, now: Date): Promise<void> {
    await this.db.rows({
      ...CONSENT_LIFECYCLE_SQL.reconciled,
      values: [merchantId, consentId, now],
    });
  }

  /** The operator's counts, by status and by merchant, optionally of one status or expiring before a time. */
  async counts(filter: { status?: string; expiringBefore?: Date }): Promise<ConsentCounts> {
    const rows = await this.db.rows({
      ...CONSENT_LIFECYCLE_SQL.counts,
      values: [filter.status ?? null, filter.expiringBefore ?? null],
    });
    const byStatus: Record<string, number> = {};
    for (const r of rows) byStatus[r.status] = (byStatus[r.status] ?? 0) + r.count;
    return {
      byStatus,
      byMerchant: rows.map((r) => ({
        merchantId: r.merchant_id,
        merchantName: r.name,
        status: r.status,
        count: r.count,
      })),
    };
  }
}
