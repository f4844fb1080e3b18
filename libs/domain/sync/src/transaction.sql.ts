import { column, copyTarget, isoText, row, type RowOf, sqlStatement } from '#libs/database';
import { SERVED_FIELDS, type UnmappedRecord } from '#libs/domain/financial-data';

export interface PageCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

/**
 * Every write that changes an account's transactions moves its `transactions_version` on, in the same
 * statement: a reader that sees the same number may serve the page it read before (StoredPageCache). This
 * repository is the column's only writer.
 */
const MOVE_VERSION = `UPDATE accounts SET transactions_version = transactions_version + 1
  WHERE id = $2::uuid AND merchant_id = $1::uuid`;

/*
 * The transactions a statement changed (`source`: a CTE of their ids) enter the user's change feed in the
 * same statement (TransactionChangeRepository reads it). The feed's head row is taken first: its lock is
 * held to commit, so the user's writers number their changes one after the other and a reader never sees
 * a number before a smaller one commits. Each transaction keeps one row, moved to its newest number: an
 * insert is added at that number; a change keeps the number it was added at, unless it had been removed;
 * the first change of a transaction a first sync appended was added at its batch's number (`inserted`: the
 * source's column telling new rows, which no batch holds).
 */
const feedOf = (
  source: string,
  removed: boolean,
  inserted: string,
) => `feed_head AS (INSERT INTO transaction_feeds AS f (user_id, last_seq)
    SELECT a.user_id, (SELECT count(*) FROM ${source}) FROM accounts a
    WHERE a.id = $2::uuid AND a.merchant_id = $1::uuid AND EXISTS (SELECT 1 FROM ${source})
    ON CONFLICT (user_id) DO UPDATE SET last_seq = f.last_seq + EXCLUDED.last_seq
    RETURNING f.user_id, f.last_seq - (SELECT count(*) FROM ${source}) AS base),
  fed AS (INSERT INTO transaction_changes AS c (transaction_id, merchant_id, user_id, account_id, record_id,
      seq, added_seq, removed, changed_at)
    SELECT s.id, $1::uuid, h.user_id, $2::uuid, s.record_id, h.base + s.n,
      COALESCE(CASE WHEN NOT s.inserted THEN (SELECT b.seq FROM transaction_feed_batches b
        WHERE b.account_id = $2::uuid AND s.id BETWEEN b.first_id AND b.last_id ORDER BY b.seq LIMIT 1) END,
        h.base + s.n), ${removed}, now()
    FROM (SELECT id, record_id, ${inserted} AS inserted, row_number() OVER (ORDER BY id) AS n FROM ${source}) s
    CROSS JOIN feed_head h
    ON CONFLICT (transaction_id) DO UPDATE SET seq = EXCLUDED.seq, removed = EXCLUDED.removed,
      changed_at = EXCLUDED.changed_at, added_seq = CASE WHEN c.removed THEN EXCLUDED.added_seq ELSE c.added_seq END
    RETURNING 1)`;

/**
 * The `id` a stored record is served with (servedId): the upstream's when it sent a non-empty string, else
 * the dedupe key. The change feed names a removed record by it.
 */
export const servedIdOf = (t: string) =>
  `CASE WHEN jsonb_typeof(${t}.raw->'id') = 'string' AND ${t}.raw->>'id' <> '' THEN ${t}.raw->>'id' ELSE ${t}.dedupe_key END`;

/**
 * Whether a stored record carries every served field itself, each a non-empty string: a page serves such a
 * record's text as it is, and maps the others (servedPageJson's `unmapped`). One jsonb lookup per field, in
 * Postgres. Never null (a missing field's lookup is null).
 */
export const carriesServedFields = (t: string) =>
  `coalesce(${SERVED_FIELDS.map((f) => `jsonb_typeof(${t}.raw->'${f}') = 'string' AND ${t}.raw->>'${f}' <> ''`).join(' AND ')}, false)`;

/*
 * A page in ONE statement: the rows travel as one JSON text, new ones are inserted, and a stored one is
 * rewritten only when the upstream record differs (jsonb equality, so key order does not matter).
 * `xmax = 0` tells an inserted row from an updated one; rows not returned were unchanged. Every row
 * written carries the run that wrote it ($4).
 */
const WRITTEN = `written AS (INSERT INTO transactions AS t (id, merchant_id, account_id, dedupe_key, date,
    booking_date_time, value_date_time, status, amount, currency, description, reference, raw, sync_run_id,
    updated_at)
  SELECT r.i, $1::uuid, $2::uuid, r.k, r.d, r.b, r.v, r.s, r.a, r.c, r.de, r.re, r.raw, $4::uuid, now()
  FROM jsonb_to_recordset($3::jsonb) AS r(i uuid, k text, d timestamptz, b timestamptz, v timestamptz,
    s text, a numeric, c text, de text, re text, raw jsonb)
  ON CONFLICT (account_id, dedupe_key) DO UPDATE SET date = EXCLUDED.date,
    booking_date_time = EXCLUDED.booking_date_time, value_date_time = EXCLUDED.value_date_time,
    status = EXCLUDED.status, amount = EXCLUDED.amount, currency = EXCLUDED.currency,
    description = EXCLUDED.description, reference = EXCLUDED.reference, raw = EXCLUDED.raw,
    sync_run_id = EXCLUDED.sync_run_id, updated_at = now()
  WHERE t.raw IS DISTINCT FROM EXCLUDED.raw
  RETURNING t.id, ${servedIdOf('t')} AS record_id, t.dedupe_key AS k, (t.xmax = 0) AS inserted),
  moved AS (${MOVE_VERSION} AND EXISTS (SELECT 1 FROM written) RETURNING 1),
  ${feedOf('written', false, 'inserted')}`;

const WRITE_PAGE = `WITH ${WRITTEN}
  SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated,
    count(*)::int AS touched
  FROM written`;

/*
 * The same page in a later attempt of a run: rows an earlier attempt of this run already inserted or changed
 * (`prior`, read on the statement's snapshot, before this write) were counted then, so they count neither
 * as updated nor as unchanged now. The run's progress is then the truth about the run as a whole.
 */
const WRITE_PAGE_AGAIN = `WITH prior AS (SELECT t.dedupe_key AS k FROM transactions t
    WHERE t.account_id = $2::uuid AND t.merchant_id = $1::uuid AND t.sync_run_id = $4::uuid
      AND t.dedupe_key IN (SELECT r.k FROM jsonb_to_recordset($3::jsonb) AS r(k text))),
  ${WRITTEN}
  SELECT count(*) FILTER (WHERE w.inserted)::int AS inserted,
    count(*) FILTER (WHERE NOT w.inserted AND p.k IS NULL)::int AS updated, count(*)::int AS touched
  FROM written w FULL JOIN prior p USING (k)`;

/** Stored records of the window the upstream did not return this time (hashed anti-join on the keys). */
const REMOVE_UNSEEN = `WITH gone AS (DELETE FROM transactions t
  WHERE t.merchant_id = $1::uuid AND t.account_id = $2::uuid
    AND ($3::timestamptz IS NULL OR t.date >= $3::timestamptz) AND t.date < $4::timestamptz
    AND t.dedupe_key NOT IN (SELECT unnest($5::text[]))
  RETURNING t.id, ${servedIdOf('t')} AS record_id),
  moved AS (${MOVE_VERSION} AND EXISTS (SELECT 1 FROM gone) RETURNING 1),
  ${feedOf('gone', true, 'true')}
  SELECT count(*)::int AS removed FROM gone`;

/*
 * A page appended by COPY (see appendPage) takes its number in the user's feed in one statement, with the
 * account's version: the feed head's lock is taken here, after the rows are in, and held to commit. The
 * page enters the feed as one batch ($4, $5: the lowest and highest id of its rows) unless the range meets
 * another batch of the account's (ids are made by the workers' clocks): then it takes a number for each row
 * ($3 of them), and the caller writes their changes.
 */
const RESERVE_FEED = `WITH moved AS (${MOVE_VERSION} RETURNING user_id),
  batched AS (SELECT NOT EXISTS (SELECT 1 FROM transaction_feed_batches b
    WHERE b.account_id = $2::uuid AND b.first_id <= $5::uuid AND b.last_id >= $4::uuid) AS yes),
  head AS (INSERT INTO transaction_feeds AS f (user_id, last_seq)
    SELECT m.user_id, CASE WHEN b.yes THEN 1 ELSE $3::bigint END FROM moved m, batched b
    ON CONFLICT (user_id) DO UPDATE SET last_seq = f.last_seq + EXCLUDED.last_seq
    RETURNING f.user_id, f.last_seq),
  batch AS (INSERT INTO transaction_feed_batches (user_id, seq, merchant_id, account_id, first_id, last_id)
    SELECT h.user_id, h.last_seq, $1::uuid, $2::uuid, $4::uuid, $5::uuid FROM head h, batched b WHERE b.yes
    RETURNING 1)
  SELECT h.user_id AS "userId", (h.last_seq - CASE WHEN b.yes THEN 1 ELSE $3::bigint END)::text AS base,
    b.yes AS batched
  FROM head h, batched b`;

/*
 * The account's key-share lock, taken once by every transaction that writes a page: `transactions.account_id`
 * has no foreign key to take it for each row (prisma/schema.prisma). Held to commit, so an account erased
 * meanwhile waits for the page, whose rows its trigger then erases with it; an account erased before is not
 * found, and the page is not written.
 */
const LOCK_ACCOUNT = `SELECT true AS held FROM accounts WHERE id = $2::uuid AND merchant_id = $1::uuid FOR KEY SHARE`;

/** The columns of a page appended by COPY, in the order `appendPage` gives them. */
export const TRANSACTIONS_COPY = copyTarget('transactions.copy', 'transactions', [
  'id',
  'merchant_id',
  'account_id',
  'dedupe_key',
  'date',
  'booking_date_time',
  'value_date_time',
  'status',
  'amount',
  'currency',
  'description',
  'reference',
  'raw',
  'sync_run_id',
  'updated_at',
]);
export const CHANGES_COPY = copyTarget('transaction-changes.copy', 'transaction_changes', [
  'transaction_id',
  'merchant_id',
  'user_id',
  'account_id',
  'record_id',
  'seq',
  'added_seq',
]);

/**
 * Where an incremental sync starts: the overlap before the newest booked record, or earlier when an older
 * record is still pending (its booked successor must be seen for the pending one to be removed). Null when
 * nothing is stored yet: the first sync reads everything the consent allows (and, `empty`, may append).
 * Each end is one probe of the (account, status, date) index: an aggregate over the account's rows read
 * every one of them (65 ms for 6,500 right after a first sync, the largest step of an incremental one).
 */
const WINDOW_START = `SELECT LEAST(
    (SELECT date FROM transactions WHERE account_id = $2::uuid AND merchant_id = $1::uuid AND status = 'BOOKED'
      ORDER BY date DESC LIMIT 1) - make_interval(days => $3::int),
    (SELECT date FROM transactions WHERE account_id = $2::uuid AND merchant_id = $1::uuid AND status = 'PENDING'
      ORDER BY date LIMIT 1)) AS "from",
  NOT EXISTS (SELECT 1 FROM transactions WHERE account_id = $2::uuid AND merchant_id = $1::uuid) AS empty`;

const WRITTEN_COUNTS = row({ inserted: 'number', updated: 'number', touched: 'number' });

const ACCOUNT_TRANSACTIONS_STATE = row({
  /** Moves on with every write of the account's transactions (StoredPageCache's key). */
  version: 'string',
  /** The account's `sync.status`, as the API shows it. */
  syncStatus: 'string',
  /** A sync of the account has succeeded (the first reads all the consent allows): the list is whole. */
  complete: 'boolean',
  /** The account's `sync.lastError`: why its last sync failed or stopped. */
  syncError: 'string?',
});

/** What a read of an account's stored transactions needs to know of the account. */
export type AccountTransactionsState = RowOf<typeof ACCOUNT_TRANSACTIONS_STATE>;

/** `page`'s statements are built per query; the schema check captures them from the method itself. */
export const TRANSACTION_SQL = {
  writePage: sqlStatement('transactions.write-page', WRITE_PAGE, WRITTEN_COUNTS),
  writePageAgain: sqlStatement('transactions.write-page-again', WRITE_PAGE_AGAIN, WRITTEN_COUNTS),
  removeUnseen: sqlStatement('transactions.remove-unseen', REMOVE_UNSEEN, {
    removed: 'number',
  }),
  windowStart: sqlStatement('transactions.window-start', WINDOW_START, { from: 'Date?', empty: 'boolean' }),
  lockAccount: sqlStatement('transactions.lock-account', LOCK_ACCOUNT, { held: 'boolean' }),
  reserveFeed: sqlStatement('transactions.reserve-feed', RESERVE_FEED, {
    userId: 'string',
    base: 'string',
    batched: 'boolean',
  }),
  version: sqlStatement(
    'transactions.version',
    `SELECT transactions_version::text AS version, lower(sync_status::text) AS "syncStatus",
            (last_synced_at IS NOT NULL) AS complete, last_sync_error AS "syncError"
            FROM accounts
            WHERE id = $1::uuid AND merchant_id = $2::uuid AND ($3::uuid IS NULL OR user_id = $3::uuid)`,
    ACCOUNT_TRANSACTIONS_STATE,
  ),
  countFor: sqlStatement(
    undefined,
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'PENDING')::int AS pending
        FROM transactions WHERE merchant_id = $1::uuid AND account_id = $2::uuid`,
    { total: 'number', pending: 'number' },
  ),
};

/**
 * A stored page as TransactionRepository.page reads it (its statements are built per query): one row, the
 * page's records as their stored texts joined by Postgres, so a page of 100 is one value to the api, not
 * 100 rows to parse; what the records lacking a served field fall back to; and where the page ends.
 */
export const STORED_PAGE_ROW = row({
  /** The records' stored texts (`raw`), in the page's order, joined with commas; null for no record. */
  records: 'string?',
  count: 'number',
  /** Another page follows. */
  more: 'boolean',
  /** The page's last record, for the next page's cursor. */
  lastDate: 'string?',
  lastId: 'string?',
  /** The records that do not carry every served field themselves (carriesServedFields); null for none. */
  unmapped: column<UnmappedRecord[] | null>('json?'),
});

export type StoredTransactionPage = RowOf<typeof STORED_PAGE_ROW>;

/**
 * The statement of a page (STORED_PAGE_ROW) of the transactions `where` picks, in direction `dir`, `limit`
 * records (a parameter). The page's rows are chosen on (date, id) alone and only then joined to their
 * records: a plan that sorts (stale statistics right after a first sync) must not read every record's JSON
 * to do it. They are numbered after the tenant's check, so a record's number is its place in the page.
 */
export function storedPageText(where: string, dir: 'ASC' | 'DESC', limit: string): string {
  const inPage = `FILTER (WHERE r.n <= ${limit})`;
  return `SELECT string_agg(r.raw, ',' ORDER BY r.n) ${inPage} AS records,
      count(*) ${inPage}::int AS count, count(*) > ${limit} AS more,
      (array_agg(r.date ORDER BY r.n DESC) ${inPage})[1] AS "lastDate",
      (array_agg(r.id ORDER BY r.n DESC) ${inPage})[1] AS "lastId",
      json_agg(json_build_object('at', r.n - 1, 'key', r.key, 'currency', r.currency) ORDER BY r.n)
        FILTER (WHERE r.n <= ${limit} AND NOT r.whole) AS unmapped
    FROM (SELECT t.id::text AS id, ${isoText('t.date')} AS date, t.raw::text AS raw, t.dedupe_key AS key,
        t.currency, ${carriesServedFields('t')} AS whole,
        row_number() OVER (ORDER BY p.date ${dir}, p.id ${dir}) AS n
      FROM (SELECT id, date FROM transactions WHERE ${where}
        ORDER BY date ${dir}, id ${dir} LIMIT ${limit} + 1) p
      JOIN transactions t ON t.id = p.id
      WHERE t.merchant_id = $1::uuid) r`;
}
