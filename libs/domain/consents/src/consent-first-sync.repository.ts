import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { MerchantId } from '#libs/context';
import { column, queryOn, sqlStatement } from '#libs/database';

/** Each account's first sync under a consent, as consent.synced reports it. */
export interface FirstSyncOfAccount {
  accountId: string;
  syncId: string;
  status: 'succeeded' | 'failed';
  inserted: number;
}

export const CONSENT_FIRST_SYNC_SQL = {
  /*
   * Taken before the check, in a statement of its own: the check's snapshot is then taken after the
   * lock, so of two first syncs of one consent ending together, the one that checks second sees the
   * other's end. Advisory, so that it orders these checks alone and no other writer of the consent.
   */
  lock: sqlStatement(
    'consents.first-sync-lock',
    `SELECT pg_advisory_xact_lock(hashtextextended('consent.synced:' || $1::text, 0))`,
  ),
  /** The consent's first syncs, once none is queued or running any more and it was not reported yet. */
  mark: sqlStatement(
    'consents.mark-first-synced',
    `WITH marked AS (
        UPDATE consents c SET first_synced_at = now(), updated_at = now()
        WHERE c.id = $2::uuid AND c.merchant_id = $1::uuid AND c.first_synced_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM accounts a JOIN sync_runs r ON r.account_id = a.id
            WHERE a.consent_id = c.id AND r.trigger = 'INITIAL' AND r.status IN ('QUEUED', 'RUNNING'))
        RETURNING c.id, c.institution_id),
      firsts AS (SELECT DISTINCT ON (r.account_id) r.account_id, r.id, r.status, r.inserted
        FROM marked m JOIN accounts a ON a.consent_id = m.id JOIN sync_runs r ON r.account_id = a.id
        WHERE r.trigger = 'INITIAL' ORDER BY r.account_id, r.queued_at DESC)
      SELECT m.institution_id AS "institutionId",
        coalesce((SELECT json_agg(json_build_object('accountId', f.account_id, 'syncId', f.id,
            'status', lower(f.status::text), 'inserted', f.inserted) ORDER BY f.account_id) FROM firsts f),
          '[]'::json) AS accounts
      FROM marked m`,
    { institutionId: 'string', accounts: column<FirstSyncOfAccount[]>('json') },
  ),
};

/** The one owner of `consents.first_synced_at`: whether consent.synced went out for the consent. */
@Injectable()
export class ConsentFirstSyncRepository {
  /**
   * In the transaction that ends a first sync (after the run is marked ended): when it was the consent's
   * last first sync to end, marks the consent and answers every account's first sync; otherwise null.
   * Once per consent, whichever sync ends last and however often a run is retried.
   */
  async markFirstSynced(
    merchantId: MerchantId,
    db: pg.PoolClient,
    consentId: string,
  ): Promise<{ institutionId: string; accounts: FirstSyncOfAccount[] } | null> {
    await queryOn(db, { ...CONSENT_FIRST_SYNC_SQL.lock, values: [consentId] });
    const { rows } = await queryOn(db, { ...CONSENT_FIRST_SYNC_SQL.mark, values: [merchantId, consentId] });
    return rows[0] ?? null;
  }
}
