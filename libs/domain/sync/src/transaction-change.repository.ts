import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { DatabasePool, sqlStatement } from '#libs/database';
import { isUuid } from '#libs/ids';

/** One row of a page of the feed: the transaction's record (JSON text) unless it was removed. */
export interface FeedRow {
  seq: string;
  accountId: string;
  /** The record's served `id`. */
  id: string;
  removed: boolean;
  /** Added after the reader's cursor (else modified). */
  added: boolean;
  raw: string | null;
}

const FEED_ROW = {
  seq: 'string',
  accountId: 'string',
  id: 'string',
  removed: 'boolean',
  added: 'boolean',
  raw: 'string',
} as const;

const PAGE_COLUMNS = `SELECT c.seq::text AS seq, c.account_id AS "accountId", c.record_id AS id, c.removed, c.added_seq > $3::bigint AS added,
    t.raw::text AS raw
  FROM transaction_changes c LEFT JOIN transactions t ON t.id = c.transaction_id AND NOT c.removed`;

export const TRANSACTION_CHANGE_SQL = {
  head: sqlStatement<{ last: string; prunedThrough: string }>(
    'transaction-feeds.head',
    `SELECT f.last_seq::text AS last, f.pruned_through::text AS "prunedThrough"
      FROM transaction_feeds f JOIN users u ON u.id = f.user_id
      WHERE f.user_id = $2::uuid AND u.merchant_id = $1::uuid`,
    { last: 'string', prunedThrough: 'string' },
  ),
  page: sqlStatement<FeedRow>(
    'transaction-changes.page',
    `${PAGE_COLUMNS}
      WHERE c.user_id = $2::uuid AND c.merchant_id = $1::uuid AND c.seq > $3::bigint
      ORDER BY c.seq LIMIT $4`,
    FEED_ROW,
  ),
  accountPage: sqlStatement<FeedRow>(
    'transaction-changes.account-page',
    `${PAGE_COLUMNS}
      WHERE c.account_id = $5::uuid AND c.user_id = $2::uuid AND c.merchant_id = $1::uuid AND c.seq > $3::bigint
      ORDER BY c.seq LIMIT $4`,
    FEED_ROW,
  ),
  /*
   * Tombstones older than the cutoff, a batch at a time; each user's feed records the highest number it
   * lost in the same statement, so a cursor from before it is refused rather than given a gap.
   */
  pruneRemovedBefore: sqlStatement<{ deleted: number }>(
    'transaction-changes.prune-removed-before',
    `WITH gone AS (
        DELETE FROM transaction_changes WHERE transaction_id IN (
          SELECT transaction_id FROM transaction_changes WHERE removed AND changed_at < $1
          ORDER BY changed_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING user_id, seq),
      marked AS (UPDATE transaction_feeds f SET pruned_through = greatest(f.pruned_through, g.through)
        FROM (SELECT user_id, max(seq) AS through FROM gone GROUP BY user_id) g
        WHERE f.user_id = g.user_id RETURNING 1)
      SELECT count(*)::int AS deleted FROM gone`,
    { deleted: 'number' },
  ),
};

/**
 * Reads and prunes the transactions change feed. Its rows are written by TransactionRepository's own
 * statements, in the statement that changes the transaction (a change and its feed entry commit together),
 * which is why the writes live there and not here.
 */
@Injectable()
export class TransactionChangeRepository {
  constructor(private readonly database: DatabasePool) {}

  /** The user's feed head (the last number given, and through which removals were pruned). */
  async head(merchantId: MerchantId, userId: string): Promise<{ last: bigint; prunedThrough: bigint }> {
    const [row] = await this.database.rows({ ...TRANSACTION_CHANGE_SQL.head, values: [merchantId, userId] });
    return { last: BigInt(row?.last ?? 0), prunedThrough: BigInt(row?.prunedThrough ?? 0) };
  }

  /** The changes after `after`, in feed order, `limit` of them at most (the caller asks one more). */
  async page(
    merchantId: MerchantId,
    userId: string,
    after: bigint,
    limit: number,
    accountId?: string,
  ): Promise<FeedRow[]> {
    if (!isUuid(merchantId) || !isUuid(userId) || (accountId !== undefined && !isUuid(accountId))) return [];
    const values = [merchantId, userId, after.toString(), limit];
    return this.database.rows(
      accountId === undefined
        ? { ...TRANSACTION_CHANGE_SQL.page, values }
        : { ...TRANSACTION_CHANGE_SQL.accountPage, values: [...values, accountId] },
    );
  }

  /** Removes up to `limit` tombstones older than `cutoff`: how many. */
  async pruneRemovedBefore(cutoff: Date, limit: number): Promise<number> {
    const [row] = await this.database.rows({
      ...TRANSACTION_CHANGE_SQL.pruneRemovedBefore,
      values: [cutoff, limit],
    });
    return row?.deleted ?? 0;
  }
}
