import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tenantOfRecord } from '#libs/context';
import { DatabasePool, PrismaService } from '#libs/database';
import { AccountSyncService, type PageCounts, pageRows, TransactionRepository } from '#libs/domain/sync';
import type { Transaction } from '#libs/upstream-client';
import {
  activeSyncRun,
  assertProperty,
  connectedSavingsAccount,
  createConsentRow,
  createDueAccounts,
  dataOf,
  eventually,
  propertyTimeout,
  SandboxHttp,
  tuned,
  uniqueQueuePrefix,
  upstreamTransactions,
  useStack,
  useTenant,
} from './kit/index.js';

/**
 * A first sync appends its pages by COPY (TransactionRepository.appendPage) where every later one upserts
 * them (writePage). The two must not differ in anything a merchant or the feed can see: for any pages of
 * records (a key again on a later page, changed or not; a key twice in one page), the stored set, the
 * counts and the feed are the same either way. And where a row is there after all, the sync still ends
 * with the bank's set.
 */

/** Few keys, so pages repeat them; amounts from a small set, so a repeat is sometimes unchanged. */
const record = fc.record({
  key: fc.nat(24),
  amount: fc.constantFrom(-12.5, 3, 1e-7, 0.1, 99_999_999_999.99),
  day: fc.integer({ min: 1, max: 28 }),
  status: fc.constantFrom('BOOKED', 'PENDING'),
  description: fc.constantFrom('coffee', 'tab\there', 'back\\slash', 'line\nbreak', 'café ☕ 🏦', null),
});
type RecordSpec = typeof record extends fc.Arbitrary<infer T> ? T : never;

const transaction = (r: RecordSpec): Transaction => ({
  id: `tx-${r.key}`,
  date: `2026-01-${String(r.day).padStart(2, '0')}T10:00:00.000Z`,
  amount: r.amount,
  currency: 'GBP',
  status: r.status,
  ...(r.description === null ? {} : { description: r.description }),
});

interface Stored {
  k: string;
  raw: string;
  amount: string;
  status: string;
  description: string | null;
}

describe('a first sync appended by COPY', () => {
  const stack = useStack({
    overrides: {
      // Nobody consumes this api's queue: the test runs the sync itself.
      QUEUE_PREFIX: uniqueQueuePrefix('sync-append'),
      ...tuned({ syncPageSize: 100 }),
      // Each case reads both feeds back through the API, a record at a time at worst.
      RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
  const tenant = useTenant(stack);

  const db = () => stack.api.app.get(DatabasePool);
  const repository = () => stack.api.app.get(TransactionRepository);

  async function stored(accountId: string): Promise<Stored[]> {
    return db().rows<Stored>({
      text: `SELECT dedupe_key AS k, raw::text AS raw, amount::text AS amount, status, description
        FROM transactions WHERE account_id = $1 ORDER BY dedupe_key`,
      values: [accountId],
    });
  }

  /**
   * The account's feed as a reader with no cursor gets it through the API, `limit` at a time: the records
   * it lists, and how many of the account's appended pages entered it as one batch.
   */
  async function feed(accountId: string, limit: number) {
    const added: { id: string }[] = [];
    let cursor = '';
    for (;;) {
      const page = dataOf<{
        added: { transaction: { id: string } }[];
        modified: { transaction: { id: string } }[];
        removed: unknown[];
        nextCursor: string;
        hasMore: boolean;
      }>(
        await tenant.client.get(
          `/v1/users/${tenant.userId}/transactions/changes?accountId=${accountId}&limit=${limit}${cursor}`,
        ),
        200,
      );
      expect(page.removed).toEqual([]);
      // A record changed after it was appended is listed at its change: as modified to a reader already past
      // the record's first number (which it may have passed before reading it: both are upserts).
      added.push(...[...page.added, ...page.modified].map((a) => a.transaction));
      cursor = `&cursor=${page.nextCursor}`;
      if (!page.hasMore) break;
    }
    const [{ batches }] = await db().rows<{ batches: number }>({
      text: `SELECT count(*)::int AS batches FROM transaction_feed_batches WHERE account_id = $1`,
      values: [accountId],
    });
    return { added, batches };
  }

  it(
    'stores, counts and feeds any pages exactly as the upsert does',
    async () => {
      const prisma = stack.api.app.get(PrismaService);
      const merchantId = tenantOfRecord({ merchantId: tenant.merchant.merchant.id });
      const consent = await createConsentRow(prisma, { id: tenant.userId, merchantId });
      await assertProperty(
        fc.asyncProperty(
          fc.array(fc.array(record, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 5 }),
          fc.boolean(),
          fc.integer({ min: 1, max: 40 }),
          async (pages, interleaved, limit) => {
            const [appended, upserted] = await createDueAccounts(prisma, consent, 2);
            const runId = crypto.randomUUID();
            const totals = { appended: [] as PageCounts[], upserted: [] as PageCounts[] };
            const seen = new Set<string>();
            // Interleaved: the pages' ids dealt out in turn, so every page's range meets the others' (as
            // ids made by two workers' clocks could): each page after the first enters the feed row by row.
            const built = pages.map((page) => pageRows(page.map(transaction), 'GBP'));
            if (interleaved) {
              const ids = built
                .flat()
                .map((r) => r.i)
                .sort();
              let next = 0;
              for (let turn = 0; next < ids.length; turn += 1)
                for (const rows of built) if (turn < rows.length) rows[turn].i = ids[next++];
            }
            for (const [n, page] of pages.entries()) {
              const rows = built[n];
              totals.appended.push(
                await db().transaction((client) =>
                  repository().appendPage(merchantId, client, appended, rows, runId, (k) => seen.has(k)),
                ),
              );
              for (const row of rows) seen.add(row.k);
              // The upsert's rows are its own: the same records, other ids.
              const again = pageRows(page.map(transaction), 'GBP');
              totals.upserted.push(
                await db().transaction((client) =>
                  repository().writePage(merchantId, client, upserted, again, { id: runId, again: false }),
                ),
              );
            }
            expect(totals.appended).toEqual(totals.upserted);
            const strip = (rows: Stored[]) =>
              rows.map(({ raw, ...rest }) => ({ ...rest, raw: JSON.parse(raw) }));
            const [a, u] = [await stored(appended), await stored(upserted)];
            expect(strip(a)).toEqual(strip(u));
            expect(a.map((r) => r.k)).toEqual([...seen].sort());

            // Read from the start, either feed lists each stored record once, as it is stored.
            const records = a.map((r) => JSON.parse(r.raw) as { id: string });
            const byId = (x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id);
            for (const account of [appended, upserted]) {
              const { added, batches } = await feed(account, limit);
              expect(added.sort(byId)).toEqual([...records].sort(byId));
              // The first page has no other batch to meet: the append's feed is batched.
              expect(batches > 0).toBe(account === appended);
            }
          },
        ),
        15,
      );
    },
    propertyTimeout(120_000),
  );

  it('refuses to append a record that is stored already, and leaves the account as it was', async () => {
    const prisma = stack.api.app.get(PrismaService);
    const merchantId = tenantOfRecord({ merchantId: tenant.merchant.merchant.id });
    const consent = await createConsentRow(prisma, { id: tenant.userId, merchantId });
    const [accountId] = await createDueAccounts(prisma, consent, 1);
    const spec: RecordSpec = { key: 1, amount: 3, day: 2, status: 'BOOKED', description: null };
    const rows = () => pageRows([transaction(spec), transaction({ ...spec, key: 2 })], 'GBP');
    await db().transaction((client) =>
      repository().appendPage(
        merchantId,
        client,
        accountId,
        rows().slice(0, 1),
        crypto.randomUUID(),
        () => false,
      ),
    );
    const before = await stored(accountId);
    await expect(
      db().transaction((client) =>
        repository().appendPage(merchantId, client, accountId, rows(), crypto.randomUUID(), () => false),
      ),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await stored(accountId)).toEqual(before);
  });

  it('appends a page larger than the COPY buffer it starts with, then a small one, each record whole', async () => {
    const prisma = stack.api.app.get(PrismaService);
    const merchantId = tenantOfRecord({ merchantId: tenant.merchant.merchant.id });
    const consent = await createConsentRow(prisma, { id: tenant.userId, merchantId });
    const [accountId] = await createDueAccounts(prisma, consent, 1);
    // Three descriptions of 600,000 characters (with the characters COPY escapes, and ones of three and
    // four bytes in UTF-8): past 1 MiB of text.
    const long = (n: number) => `${n}\t\\€🏦`.repeat(100_000);
    const spec: RecordSpec = { key: 0, amount: 3, day: 1, status: 'BOOKED', description: null };
    const large = [0, 1, 2].map((n) => ({ ...transaction({ ...spec, key: n }), description: long(n) }));
    const small = [transaction({ ...spec, key: 3, description: 'coffee' })];
    for (const page of [large, small]) {
      const rows = pageRows(page, 'GBP');
      await db().transaction((client) =>
        repository().appendPage(merchantId, client, accountId, rows, crypto.randomUUID(), () => false),
      );
    }
    const descriptions = (await stored(accountId)).map((r) => r.description);
    expect(descriptions).toEqual([long(0), long(1), long(2), 'coffee']);
  });

  it('ends with the bank’s set when a record is stored after the window was fixed', async () => {
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const account = await connectedSavingsAccount(stack, tenant);
    const runId = await activeSyncRun(stack, tenant, account.id);
    const upstream = await upstreamTransactions(stack, account.consentId, account.upstreamId);
    // The first page waits, so a record can be stored between the window and the first write.
    await sandbox.admin('POST', '/faults', {
      method: 'GET',
      path: `/accounts/${account.upstreamId}/transactions`,
      latencyMs: 1_000,
      count: 1,
    });
    const merchantId = tenantOfRecord({ merchantId: tenant.merchant.merchant.id });
    const sync = stack.api.app
      .get(AccountSyncService)
      .run({ merchantId, accountId: account.id, runId }, { finalAttempt: true, retryInMs: 1_000 });
    await eventually('the window fixed', async () => {
      const [run] = await db().rows<{ before: Date | null }>({
        text: `SELECT window_before AS before FROM sync_runs WHERE id = $1`,
        values: [runId],
      });
      return run.before ? true : undefined;
    });
    const first = upstream[0];
    const early = pageRows([{ ...first, currency: 'GBP', amount: 1 }], 'GBP');
    await db().transaction((client) =>
      repository().writePage(merchantId, client, account.id, early, {
        id: crypto.randomUUID(),
        again: false,
      }),
    );
    expect(await sync).toBe('succeeded');
    await sandbox.admin('DELETE', '/faults');
    const keys = (await stored(account.id)).map((r) => r.k);
    expect(keys).toEqual(upstream.map((t) => `id:${t.id}`).sort());
    // The bank's record replaced the one stored meanwhile.
    const amounts = new Map((await stored(account.id)).map((r) => [r.k, Number(r.amount)]));
    expect(amounts.get(`id:${first.id}`)).toBe(first.amount);
  });
});
