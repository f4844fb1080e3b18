import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { MerchantId } from '#libs/context';
import { copyRows, DatabasePool, queryOn, ReadCache, type ReadSource, ReplicaReads } from '#libs/database';
import { servedId } from '#libs/domain/financial-data';
import type { SyncWindow } from '#libs/domain/sync-runs';
import {
  type AccountTransactionsState,
  CHANGES_COPY,
  type PageCounts,
  storedPageText,
  type StoredTransactionPage,
  TRANSACTION_SQL,
  TRANSACTIONS_COPY,
} from './transaction.sql.js';
import type { TransactionRow } from './transaction-records.js';

/** The lowest and highest id of a page's rows (ids of one form compare as text as Postgres compares uuids). */
function idRange(rows: readonly TransactionRow[]): { first: string; last: string } {
  let first = rows[0].i;
  let last = first;
  for (const { i } of rows) {
    if (i < first) first = i;
    if (i > last) last = i;
  }
  return { first, last };
}

/** The one owner of the `transactions` table. */
@Injectable()
export class TransactionRepository {
  constructor(
    private readonly database: DatabasePool,
    private readonly cache: ReadCache,
    private readonly reads: ReplicaReads,
  ) {}

  /**
   * Writes a page for a run and counts it, under the account's key-share lock (lockAccount). `again`: an
   * earlier attempt of the same run may have written some of these rows; those are not counted a second time.
   */
  async writePage(
    merchantId: MerchantId,
    db: pg.PoolClient,
    accountId: string,
    rows: readonly TransactionRow[],
    run: { id: string; again: boolean },
  ): Promise<PageCounts> {
    if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
    await this.lockAccount(merchantId, db, accountId);
    return this.upsertPage(merchantId, db, accountId, rows, run);
  }

  private async upsertPage(
    merchantId: MerchantId,
    db: pg.PoolClient,
    accountId: string,
    rows: readonly TransactionRow[],
    run: { id: string; again: boolean },
  ): Promise<PageCounts> {
    if (rows.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
    const result = await queryOn(db, {
      ...(run.again ? TRANSACTION_SQL.writePageAgain : TRANSACTION_SQL.writePage),
      values: [merchantId, accountId, JSON.stringify(rows), run.id],
    });
    const { inserted, updated, touched } = result.rows[0];
    return { inserted, updated, unchanged: rows.length - touched };
  }

  /**
   * Writes a page of a run that began on an account with no rows, in its first attempt: the rows whose key
   * no earlier page of the run held (`seenBefore`) are appended by COPY, a third of the statement's cost in
   * Postgres, and enter the feed as one batch (a row per transaction when their id range meets another
   * batch of the account's); the others are upserted as `writePage` does, the later record winning. Under
   * the account's key-share lock, taken once, as for every page (lockAccount). Fails with Postgres's unique
   * violation (23505) if a row is there after all: the caller writes the page again through `writePage`.
   */
  async appendPage(
    merchantId: MerchantId,
    db: pg.PoolClient,
    accountId: string,
    rows: readonly TransactionRow[],
    runId: string,
    seenBefore: (key: string) => boolean,
  ): Promise<PageCounts> {
    const fresh = rows.filter((row) => !seenBefore(row.k));
    const again = fresh.length === rows.length ? [] : rows.filter((row) => seenBefore(row.k));
    await this.lockAccount(merchantId, db, accountId);
    const counts = await this.upsertPage(merchantId, db, accountId, again, { id: runId, again: false });
    if (fresh.length === 0) return counts;
    const now = new Date();
    await copyRows(
      db,
      TRANSACTIONS_COPY,
      fresh.map((r) => [
        r.i,
        merchantId,
        accountId,
        r.k,
        r.d,
        r.b,
        r.v,
        r.s,
        r.a,
        r.c,
        r.de,
        r.re,
        JSON.stringify(r.raw),
        runId,
        now,
      ]),
    );
    const { first, last } = idRange(fresh);
    const {
      rows: [head],
    } = await queryOn(db, {
      ...TRANSACTION_SQL.reserveFeed,
      values: [merchantId, accountId, fresh.length, first, last],
    });
    if (!head.batched) {
      const base = BigInt(head.base);
      await copyRows(
        db,
        CHANGES_COPY,
        fresh.map((r, n) => {
          const seq = base + BigInt(n + 1);
          return [r.i, merchantId, head.userId, accountId, servedId(r.raw, r.k), seq, seq];
        }),
      );
    }
    return { ...counts, inserted: counts.inserted + fresh.length };
  }

  /** The account's key-share lock for the page's transaction (see TRANSACTION_SQL.lockAccount). */
  private async lockAccount(merchantId: MerchantId, db: pg.PoolClient, accountId: string): Promise<void> {
    const { rows } = await queryOn(db, { ...TRANSACTION_SQL.lockAccount, values: [merchantId, accountId] });
    if (rows.length === 0) throw new Error(`account ${accountId} is gone: its transactions are not written`);
  }

  async removeUnseen(
    merchantId: MerchantId,
    db: pg.PoolClient,
    accountId: string,
    window: SyncWindow,
    seenKeys: Iterable<string>,
  ): Promise<number> {
    const result = await queryOn(db, {
      ...TRANSACTION_SQL.removeUnseen,
      values: [merchantId, accountId, window.from, window.before, [...seenKeys]],
    });
    return result.rows[0]?.removed ?? 0;
  }

  /** Where an incremental sync starts (null: from what the consent allows), and whether nothing is stored. */
  async windowStart(
    merchantId: MerchantId,
    accountId: string,
    overlapDays: number,
  ): Promise<{ from: Date | null; empty: boolean }> {
    const [row] = await this.database.rows({
      ...TRANSACTION_SQL.windowStart,
      values: [merchantId, accountId, overlapDays],
    });
    return { from: row?.from ?? null, empty: row?.empty ?? true };
  }

  /**
   * One page of an account's stored transactions, keyset-paged on (date, id) in either direction, read as
   * one row (STORED_PAGE_ROW), with one record more than asked to tell whether another page follows.
   */
  async page(
    merchantId: MerchantId,
    accountId: string,
    query: {
      from?: Date;
      before?: Date;
      status?: string;
      ascending: boolean;
      after?: { date: string; id: string };
      limit: number;
    },
    source: ReadSource,
  ): Promise<StoredTransactionPage> {
    const [op, dir] = query.ascending ? (['>', 'ASC'] as const) : (['<', 'DESC'] as const);
    // Only the conditions asked for, each shape its own prepared statement: a generic plan of
    // `$n IS NULL OR …` could not walk the (account_id, date, id) index and would sort every record.
    const values: unknown[] = [merchantId, accountId];
    // The tenant is checked on the joined rows, not in the index walk: an account's merchant is fixed, but a
    // planner that multiplies the two filters' selectivities expects a handful of rows and sorts them all.
    const where = ['account_id = $2::uuid'];
    const shape: string[] = [dir.toLowerCase()];
    const add = (key: string, condition: (n: number) => string, ...params: unknown[]) => {
      const n = values.length + 1;
      values.push(...params);
      where.push(condition(n));
      shape.push(key);
    };
    if (query.status !== undefined) add('status', (n) => `status = $${n}::text`, query.status);
    if (query.from) add('from', (n) => `date >= $${n}::timestamptz`, query.from);
    if (query.before) add('before', (n) => `date < $${n}::timestamptz`, query.before);
    if (query.after)
      add(
        'after',
        (n) => `(date, id) ${op} ($${n}::timestamptz, $${n + 1}::uuid)`,
        query.after.date,
        query.after.id,
      );
    values.push(query.limit);
    const [page] = await this.reads.rowsFrom<StoredTransactionPage>(source, {
      name: `transactions.page-${shape.join('-')}`,
      text: storedPageText(where.join(' AND '), dir, `$${values.length}::int`),
      values,
    });
    return page;
  }

  /**
   * The account's transactions version and sync state, when the caller may read it (the account is the
   * merchant's, and the session user's when there is one); null otherwise. With the server it was read
   * from, where the page of that version is to be read too: the replica when it may serve the merchant
   * and has the account, else the primary.
   */
  async stateFor(
    merchantId: MerchantId,
    accountId: string,
    userId?: string,
  ): Promise<{ state: AccountTransactionsState | null; source: ReadSource }> {
    const statement = { ...TRANSACTION_SQL.version, values: [accountId, merchantId, userId ?? null] };
    if ((await this.reads.sourceFor(merchantId)) === 'replica') {
      // Never from the cache: the cache is the primary's, which may be ahead of the page read next.
      const [row] = await this.reads.rowsFrom('replica', statement);
      if (row) return { state: row, source: 'replica' };
    }
    // Kept per api process until Postgres notifies a change of the account's transactions (or of anything
    // of the merchant's, which covers the account leaving): a page view then costs no round trip at all.
    const state = await this.cache.read(
      merchantId,
      `transactions-state:${accountId}:${userId ?? ''}`,
      async () => {
        const [row] = await this.database.rows(statement);
        return row ?? null;
      },
      accountId,
    );
    return { state, source: 'primary' };
  }

  /** Counts per account, for tests and operators: how many records, and how many of them pending. */
  async countFor(merchantId: MerchantId, accountId: string): Promise<{ total: number; pending: number }> {
    const [row] = await this.database.rows({
      ...TRANSACTION_SQL.countFor,
      values: [merchantId, accountId],
    });
    return row ?? { total: 0, pending: 0 };
  }
}
