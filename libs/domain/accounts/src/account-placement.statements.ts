import { Prisma, sqlStatement, sqlTemplate } from '#libs/database';

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
  deleteStaleBalances: sqlStatement(
    'accounts.delete-stale-balances',
    `DELETE FROM account_balances WHERE merchant_id = $1::uuid AND account_id = $2::uuid
        AND NOT (type = ANY($3::text[]))`,
  ),
  upsertBalances: sqlStatement(
    'accounts.upsert-balances',
    `INSERT INTO account_balances AS b (id, merchant_id, account_id, type, amount, currency, date_time,
          credit_line_included, credit_lines, updated_at)
        SELECT r.id, $1::uuid, $2::uuid, r.type, r.amount, r.currency, r.date_time, r.credit_line_included,
          r.credit_lines, now()
        FROM jsonb_to_recordset($3::jsonb) AS r(id uuid, type text, amount numeric, currency text,
          date_time timestamptz, credit_line_included boolean, credit_lines jsonb)
        ON CONFLICT (account_id, type) DO UPDATE SET amount = EXCLUDED.amount, currency = EXCLUDED.currency,
          date_time = EXCLUDED.date_time, credit_line_included = EXCLUDED.credit_line_included,
          credit_lines = EXCLUDED.credit_lines, updated_at = now()`,
  ),
};
