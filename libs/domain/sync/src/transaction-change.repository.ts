import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { DatabasePool, type ReadSource, ReplicaReads, row, type RowOf, sqlStatement } from '#libs/database';
import { servedIdOf } from './transaction.sql.js';

/**
 * A place in a user's feed: every change numbered up to `seq` has been read, but of the batch at `seq` (a
 * first sync's appended page) only its transactions up to `afterId`, when set.
 */
export interface FeedPosition {
  seq: bigint;
  afterId?: string;
}

/** The user's feed head: the last number given, and through which removals were pruned. */
export interface FeedHead {
  last: bigint;
  prunedThrough: bigint;
}

/** One row of a page of the feed: the transaction's record (JSON text) unless it was removed. */
const FEED_ROW = row({
  seq: 'string',
  /** Our transaction's id: the place within a batch. */
  transactionId: 'string',
  /** The row is one of a batch's transactions. */
  batched: 'boolean',
  accountId: 'string',
  /** The record's served `id`. */
  id: 'string',
  removed: 'boolean',
  /** Added after the reader's position (else modified). */
  added: 'boolean',
  raw: 'string?',
  /** The currency the record was stored under: what its served `currency` falls back to. */
  currency: 'string?',
});

export type FeedRow = RowOf<typeof FEED_ROW>;

/** Past every id: a position with no `afterId` has read the whole of its number. */
const WHOLE = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/*
 * A page in one statement, so the changes and the batches are read on one snapshot: the changes after the
 * position, and the transactions of the batches from it that have no change of their own (those are read at
 * their change's number), in (number, id) order. $3, $5: the position; $4: how many; $6: one account.
 */
const pageOf = (
  account: (table: string) => string,
) => `SELECT p.seq::text AS seq, p.tid AS "transactionId", p.batched,
    p.account_id AS "accountId", p.id, p.removed, p.added, p.raw, p.currency
  FROM ((SELECT c.seq, c.transaction_id AS tid, false AS batched, c.account_id, c.record_id AS id, c.removed,
      c.added_seq > $3::bigint OR (c.added_seq = $3::bigint AND c.transaction_id > $5::uuid) AS added,
      t.raw::text AS raw, t.currency
    FROM transaction_changes c LEFT JOIN transactions t ON t.id = c.transaction_id AND NOT c.removed
    WHERE c.user_id = $2::uuid AND c.merchant_id = $1::uuid AND c.seq > $3::bigint ${account('c')}
    ORDER BY c.seq LIMIT $4)
  UNION ALL
    (SELECT b.seq, t.id, true, b.account_id, ${servedIdOf('t')}, false, true, t.raw::text, t.currency
    FROM transaction_feed_batches b CROSS JOIN LATERAL (SELECT t.id, t.raw, t.dedupe_key, t.currency
      FROM transactions t
      WHERE t.account_id = b.account_id AND t.id BETWEEN b.first_id AND b.last_id
        AND (b.seq > $3::bigint OR t.id > $5::uuid)
        AND NOT EXISTS (SELECT 1 FROM transaction_changes c WHERE c.transaction_id = t.id)
      ORDER BY t.id LIMIT $4) t
    WHERE b.user_id = $2::uuid AND b.merchant_id = $1::uuid AND b.seq >= $3::bigint ${account('b')}
    ORDER BY b.seq, t.id LIMIT $4)) p
  ORDER BY p.seq, p.tid LIMIT $4`;

export const TRANSACTION_CHANGE_SQL = {
  head: sqlStatement(
    'transaction-feeds.head',
    `SELECT f.last_seq::text AS last, f.pruned_through::text AS "prunedThrough"
      FROM transaction_feeds f JOIN users u ON u.id = f.user_id
      WHERE f.user_id = $2::uuid AND u.merchant_id = $1::uuid`,
    { last: 'string', prunedThrough: 'string' },
  ),
  page: sqlStatement(
    'transaction-changes.page',
    pageOf(() => ''),
    FEED_ROW,
  ),
  accountPage: sqlStatement(
    'transaction-changes.account-page',
    pageOf((table) => `AND ${table}.account_id = $6::uuid`),
    FEED_ROW,
  ),
  /*
   * Tombstones older than the cutoff, a batch at a time; each user's feed records the highest number it
   * lost in the same statement, so a cursor from before it is refused rather than given a gap.
   */
  pruneRemovedBefore: sqlStatement(
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
 * A page of the feed as one statement and its values: the user's feed, or one account's of it. The one
 * place its values are put in order, so the bench (test/bench/scenarios/transaction-changes.mjs) reads
 * with the api's own statement and values and cannot fall behind a change to either.
 */
export function feedPageQuery(
  merchantId: MerchantId,
  userId: string,
  after: FeedPosition,
  limit: number,
  accountId?: string,
) {
  const values = [merchantId, userId, after.seq.toString(), limit, after.afterId ?? WHOLE];
  return accountId === undefined
    ? { ...TRANSACTION_CHANGE_SQL.page, values }
    : { ...TRANSACTION_CHANGE_SQL.accountPage, values: [...values, accountId] };
}

/**
 * Reads and prunes the transactions change feed. Its rows are written by TransactionRepository's own
 * statements, in the statement that changes the transaction (a change and its feed entry commit together),
 * which is why the writes live there and not here.
 */
@Injectable()
export class TransactionChangeRepository {
  constructor(
    private readonly database: DatabasePool,
    private readonly reads: ReplicaReads,
  ) {}

  /**
   * The changes after `after`, in feed order, `limit` of them at most (the caller asks one more), then the
   * user's feed head (the last number given, and through which removals were pruned), read after the page:
   * a prune that took a removal this page would have listed has recorded it by then. Both from the same
   * server: the replica when it may serve the merchant, unless it has not yet replayed as far as the
   * caller's cursor (the caller has read further, elsewhere), then the primary.
   */
  async pageAndHead(
    merchantId: MerchantId,
    userId: string,
    after: FeedPosition,
    limit: number,
    accountId?: string,
  ): Promise<{ rows: FeedRow[]; head: FeedHead }> {
    const read = async (source: ReadSource) => {
      const rows = await this.reads.rowsFrom(
        source,
        feedPageQuery(merchantId, userId, after, limit, accountId),
      );
      const [row] = await this.reads.rowsFrom(source, {
        ...TRANSACTION_CHANGE_SQL.head,
        values: [merchantId, userId],
      });
      const head = { last: BigInt(row?.last ?? 0), prunedThrough: BigInt(row?.prunedThrough ?? 0) };
      return { rows, head };
    };
    const source = await this.reads.sourceFor(merchantId);
    const page = await read(source);
    return source === 'replica' && after.seq > page.head.last ? read('primary') : page;
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
