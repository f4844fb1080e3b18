import { Prisma, sqlTemplate } from '#libs/database';

// The statements AccountPlacementRepository runs, apart from its methods.

/** Whose account a moved row becomes: the consent's, checked against the row's merchant and user. */
interface MoveOwner {
  merchantId: string;
  userId: string;
  consentId: string;
}

export const ACCOUNT_PLACEMENT_SQL = {
  /** In the placing Prisma transaction. */
  lockPlacement: sqlTemplate(
    'accounts.lock-placement',
    (key: string) => Prisma.sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`,
  ),
  /** In the placing Prisma transaction. */
  move: sqlTemplate(
    'accounts.move',
    (
      owner: MoveOwner,
      accountId: string,
      upstreamAccountId: string,
      now: Date,
    ) => Prisma.sql`UPDATE accounts SET consent_id = ${owner.consentId}::uuid,
        upstream_account_id = ${upstreamAccountId}, closed_at = NULL, last_sync_error = NULL,
        sync_status = CASE WHEN sync_status = 'SYNCING' THEN sync_status ELSE 'PENDING' END,
        next_sync_at = ${now}, updated_at = ${now}
      WHERE id = ${accountId}::uuid AND merchant_id = ${owner.merchantId}::uuid AND user_id = ${owner.userId}::uuid`,
  ),
};
