import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import {
  dedupeKeyOf,
  SERVED_FIELDS,
  servedFields,
  servedPageJson,
  servedTransaction,
  storedTransaction,
  UnusableTransactionError,
} from '#libs/domain/financial-data';
import { carriesServedFields, servedIdOf } from '#libs/domain/sync';
import type { Transaction } from '#libs/upstream-client';
import {
  accountsWhenSynced,
  ApiClient,
  type ApiResponse,
  assertProperty,
  connect,
  onboard,
  tuned,
  useStack,
} from './kit/index.js';

/*
 * A transaction is stored as the upstream sent it (amounts as strings) and served with what the BFF
 * derives set as it is read (libs/domain/financial-data/src/served-transaction.ts). These hold the two
 * forms together for any upstream record: the served record is the same from the stored text as Postgres
 * prints it, from a record stored in served form (before the split), and from the text served whole when
 * Postgres says the record carries every served field.
 */

const money = fc.record({
  amount: fc.double({ min: -1e9, max: 1e9, noNaN: true, noDefaultInfinity: true }),
  currency: fc.constantFrom('GBP', 'EUR'),
});
const iso = fc
  .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
  .map((d) => d.toISOString());

/** Upstream records as they come: any served field may be missing, empty or carried elsewhere. */
const upstreamRecord = fc
  .record(
    {
      id: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constant(''), fc.integer()),
      date: iso,
      bookingDateTime: iso,
      valueDateTime: iso,
      status: fc.constantFrom('BOOKED', 'PENDING'),
      amount: money.map((m) => m.amount),
      currency: fc.constantFrom('GBP', 'usd', ''),
      transactionAmount: money,
      balance: fc.record({ type: fc.constant('CLOSING_AVAILABLE'), balanceAmount: money }),
      description: fc.string({ maxLength: 30 }),
      enrichment: fc.record({ transactionHash: fc.record({ hash: fc.stringMatching(/^[0-9a-f]{8,32}$/) }) }),
    },
    { requiredKeys: [] },
  )
  .map((tx) => tx as Transaction);

const copy = (tx: Transaction) => JSON.parse(JSON.stringify(tx)) as Transaction;

describe('stored and served transactions', () => {
  let db: pg.Client;
  beforeAll(async () => {
    db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
  });

  /**
   * The stored text as a page reads it: Postgres's print of the jsonb, whether it is served whole, and the
   * served id the change feed names it by (servedIdOf, the SQL twin of servedId).
   */
  const readBack = async (stored: string, key: string) =>
    (
      await db.query<{ raw: string; whole: boolean; id: string }>(
        `SELECT t.raw::text AS raw, ${carriesServedFields('t')} AS whole, ${servedIdOf('t')} AS id
          FROM (SELECT $1::jsonb AS raw, $2::text AS dedupe_key) t`,
        [stored, key],
      )
    ).rows[0];

  it('serves a stored record as the upstream record it came from, whichever way it is read', async () => {
    await assertProperty(
      fc.asyncProperty(upstreamRecord, fc.constantFrom('GBP', null), async (tx, accountCurrency) => {
        const fallbacks = { key: dedupeKeyOf(tx), currency: accountCurrency };
        let served;
        try {
          served = servedTransaction(storedTransaction(copy(tx)), fallbacks);
        } catch (error) {
          // A record a sync refuses: it is never stored.
          expect(error).toBeInstanceOf(UnusableTransactionError);
          return;
        }
        expect(Object.keys(servedFields(storedTransaction(copy(tx)), fallbacks))).toEqual(SERVED_FIELDS);
        const { raw, whole, id } = await readBack(JSON.stringify(storedTransaction(copy(tx))), fallbacks.key);
        // A page of it: served as its text when it carries every served field, else mapped.
        const page = (text: string, mapped: boolean, at = 0) =>
          JSON.parse(`[${servedPageJson(text, mapped ? [{ at, ...fallbacks }] : [])}]`) as unknown[];
        expect(page(raw, !whole)).toEqual([served]);
        expect(id).toBe(served.id);
        expect(page(raw, true)).toEqual([served]);
        // Between two others, mapped or not, it is still itself.
        expect(page(`{"n":1},${raw},{"n":2}`, true, 1)).toEqual([{ n: 1 }, served, { n: 2 }]);
        // Stored before the split, in served form: served as it was.
        const before = await readBack(JSON.stringify(served), fallbacks.key);
        expect(before.whole).toBe(true);
        expect(page(before.raw, false)).toEqual([served]);
        expect(served.id).toBe(typeof tx.id === 'string' && tx.id !== '' ? tx.id : fallbacks.key);
        for (const amount of [
          served.amount,
          served.transactionAmount?.amount,
          served.balance?.balanceAmount?.amount,
        ])
          if (amount !== undefined) expect(amount).toMatch(/^-?\d+\.\d{2,}$/);
      }),
      150,
    );
  });

  it('refuses an upstream record whose amount is not a number, or that has no date or currency', () => {
    const refused = (tx: object) =>
      expect(() =>
        servedTransaction(storedTransaction(tx as Transaction), { key: 'k', currency: null }),
      ).toThrow(UnusableTransactionError);
    refused({ id: 'a', date: '2026-01-01', amount: '1.00', currency: 'GBP' });
    refused({ id: 'a', amount: 1, currency: 'GBP' });
    refused({ id: 'a', date: '2026-01-01', amount: 1 });
  });
});

/*
 * A stored record is served as its stored text when it carries every served field, and mapped when it does
 * not (servedPageJson): a page mixing the two answers as the same page read whole, the same records, counts
 * and cursors, page after page.
 */
describe('stored pages, whole and mapped', () => {
  // Every page of an account is read twice: past the default rate limit, which is not what this tests.
  const stack = useStack({ worker: true, overrides: { RATE_LIMIT_PER_MINUTE: '100000' } });

  /** Every page of the account's stored transactions, 37 at a time, without their tracing ids. */
  async function allPages(client: ApiClient, accountId: string) {
    const pages: unknown[] = [];
    let path: string | undefined = `/v1/accounts/${accountId}/transactions?limit=37`;
    while (path) {
      const page: ApiResponse = await client.get(path);
      expect(page.status, path).toBe(200);
      pages.push({ ...page.body, meta: { ...page.body.meta, tracingId: undefined } });
      const next = page.body.meta.nextCursor as string | null;
      path = next
        ? `/v1/accounts/${accountId}/transactions?limit=37&cursor=${encodeURIComponent(next)}`
        : undefined;
    }
    return pages;
  }

  it('answers a page some of whose records lack a served field as the page read whole', async () => {
    const tenant = await onboard(stack);
    await connect(stack, tenant);
    const [account] = await accountsWhenSynced(tenant.client, tenant.userId);
    const whole = await allPages(tenant.client, account.id);
    expect(whole.length).toBeGreaterThan(2);
    // The currency falls back to the stored column, which holds the same code: served alike once mapped.
    const stripped = await stack.api.app.get(DatabasePool).rows<{ id: string }>({
      text: `UPDATE transactions SET raw = raw - 'currency'
        WHERE account_id = $1::uuid AND get_byte(uuid_send(id), 15) % 3 = 0 RETURNING id`,
      values: [account.id],
    });
    expect(stripped.length).toBeGreaterThan(0);
    // An api without its caches: every page read from Postgres now, some whole, some mapped.
    const uncached = await stack.startApi({
      ...tuned({ readCacheMb: 0, storedPageCacheMb: 0 }),
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    try {
      expect(await allPages(new ApiClient(uncached.url, tenant.merchant.apiKey.key), account.id)).toEqual(
        whole,
      );
    } finally {
      await uncached.close();
    }
  });
});
