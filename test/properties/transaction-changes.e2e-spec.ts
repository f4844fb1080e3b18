import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import { TransactionChangesRetentionService } from '#libs/domain/sync';
import {
  type ApiClient,
  assertProperty,
  connectedUser,
  dataOf,
  onboard,
  propertyTimeout,
  SandboxHttp,
  storedTransactions,
  syncToEnd,
  type Tenant,
  tuned,
  uniqueQueuePrefix,
  useStack,
} from '../kit/index.js';

/**
 * `GET /v1/users/{userId}/transactions/changes` (issue 41), as an invariant: for any sequence of bank-side
 * additions, modifications and removals, syncs of the user's accounts (one at a time or together) and
 * reads of the feed in pages of any size between them, applying every page to an empty copy gives
 * exactly the stored set, record for record.
 *
 * The test plays the worker's part (it runs each sync itself, as the sync-faults property does), so it
 * decides which syncs overlap; Postgres, the upstream client and the sandbox over HTTP are real.
 */

/** Two bank connections and three first syncs: 67 s measured at a load average of 14 on two cores. */
const CURSOR_TEST_MS = 240_000;

type Change = {
  added: { accountId: string; transaction: { id: string } }[];
  modified: { accountId: string; transaction: { id: string } }[];
  removed: { accountId: string; id: string }[];
  nextCursor: string;
  hasMore: boolean;
};

type Step =
  | { kind: 'add'; account: number; amount: number }
  | { kind: 'modify'; account: number; pick: number; amount: number }
  | { kind: 'remove'; account: number; pick: number }
  | { kind: 'sync'; accounts: 'one' | 'both'; account: number }
  | { kind: 'read'; limit: number; pages: number };

// Never zero: the bank (the sandbox, as a real one) refuses a transaction of no amount.
const amount = fc
  .integer({ min: -99_999, max: 99_999 })
  .filter((minor) => minor !== 0)
  .map((minor) => minor / 100);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), account: fc.nat(2), amount }),
  fc.record({ kind: fc.constant('modify' as const), account: fc.nat(2), pick: fc.nat(), amount }),
  fc.record({ kind: fc.constant('remove' as const), account: fc.nat(2), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('sync' as const),
    accounts: fc.constantFrom('one' as const, 'both' as const),
    account: fc.nat(2),
  }),
  // Past a sync's page of records and past the feed's own page size.
  fc.record({
    kind: fc.constant('read' as const),
    limit: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.constant(500)),
    pages: fc.integer({ min: 1, max: 3 }),
  }),
);

describe('property: the transactions change feed rebuilds the stored set', () => {
  const stack = useStack({
    overrides: {
      // Nobody consumes this api's queue: the test runs every sync.
      QUEUE_PREFIX: uniqueQueuePrefix('tx-changes'),
      // The changes made at the bank are to its newest records: every sync reads back past them.
      ...tuned({ syncOverlapDays: 90 }),
      // Each case reads every stored record back through the API, more than a minute's allowance.
      RATE_LIMIT_PER_MINUTE: '100000',
    },
  });
  let tenant: Tenant;
  let sandbox: SandboxHttp;

  beforeAll(async () => {
    tenant = await onboard(stack);
    sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
  });

  const db = () => stack.api.app.get(DatabasePool);

  /** A fresh user with the bank connected: its accounts (ours and the bank's ids) and the bank's consent. */
  async function connectedUserAccounts() {
    const { userId, consentId } = await connectedUser(stack, tenant);
    const accounts = await db().rows<{ id: string; upstreamId: string; bankConsent: string }>({
      text: `SELECT a.id, a.upstream_account_id AS "upstreamId", c.upstream_consent_id AS "bankConsent"
        FROM accounts a JOIN consents c ON c.id = a.consent_id WHERE a.consent_id = $1 ORDER BY a.type`,
      values: [consentId],
    });
    expect(accounts.length).toBeGreaterThan(1);
    return { userId, accounts };
  }

  /** One sync of the account to its end, as the worker runs it. */
  async function sync(accountId: string): Promise<void> {
    expect(await syncToEnd(stack, tenant, accountId)).toBe('succeeded');
  }

  async function feedPage(client: ApiClient, userId: string, cursor: string | null, limit: number) {
    const query = `limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    return dataOf<Change>(await client.get(`/v1/users/${userId}/transactions/changes?${query}`), 200);
  }

  /** A copy kept from the feed: (account, id) → the record as JSON. */
  function apply(copy: Map<string, string>, page: Change): void {
    for (const { accountId, transaction } of [...page.added, ...page.modified])
      copy.set(`${accountId}|${transaction.id}`, JSON.stringify(transaction));
    for (const { accountId, id } of page.removed) copy.delete(`${accountId}|${id}`);
  }

  async function storedSet(accountIds: string[]): Promise<Map<string, string>> {
    const set = new Map<string, string>();
    for (const accountId of accountIds)
      for (const record of await storedTransactions(tenant.client, accountId))
        set.set(`${accountId}|${record.id}`, JSON.stringify(record));
    return set;
  }

  it(
    'any bank changes, syncs and reads: the copy the feed builds equals the stored set',
    async () => {
      await assertProperty(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
          const { userId, accounts } = await connectedUserAccounts();
          const copy = new Map<string, string>();
          let cursor: string | null = null;
          const read = async (limit: number, pages: number) => {
            for (let p = 0; p < pages; p += 1) {
              const page = await feedPage(tenant.client, userId, cursor, limit);
              apply(copy, page);
              cursor = page.nextCursor;
              if (!page.hasMore) return;
            }
          };
          // The first syncs run while the feed is read.
          await Promise.all([...accounts.map((a) => sync(a.id)), read(50, 3)]);
          for (const s of steps) {
            const account = accounts[s.kind === 'read' ? 0 : s.account % accounts.length];
            const bank = `/consents/${account.bankConsent}/accounts/${account.upstreamId}/transactions`;
            const pick = async (n: number) => {
              const records = await storedTransactions(tenant.client, account.id, 'limit=50');
              return records.length === 0 ? undefined : records[n % records.length].id;
            };
            if (s.kind === 'add') {
              const added = await sandbox.admin('POST', bank, { amount: s.amount, description: 'feed test' });
              expect(added.status).toBe(201);
            } else if (s.kind === 'modify') {
              const id = await pick(s.pick);
              if (id === undefined) continue;
              const changed = await sandbox.admin('PATCH', `${bank}/${id}`, { amount: s.amount });
              expect(changed.status).toBe(200);
            } else if (s.kind === 'remove') {
              const id = await pick(s.pick);
              if (id === undefined) continue;
              const removed = await sandbox.admin('DELETE', `${bank}/${id}`);
              expect(removed.status).toBe(204);
            } else if (s.kind === 'sync') {
              // Syncs of the user's accounts write the one feed at once, while it is read.
              const ids = s.accounts === 'both' ? accounts.map((a) => a.id) : [account.id];
              await Promise.all([...ids.map((id) => sync(id)), read(7, 2)]);
            } else {
              await read(s.limit, s.pages);
            }
          }
          await Promise.all(accounts.map((a) => sync(a.id)));
          for (;;) {
            const page = await feedPage(tenant.client, userId, cursor, 500);
            apply(copy, page);
            cursor = page.nextCursor;
            if (!page.hasMore) break;
          }
          const stored = await storedSet(accounts.map((a) => a.id));
          expect(copy.size).toBe(stored.size);
          // The same record, field for field (the two lists may order a record's keys differently).
          for (const [key, record] of stored)
            expect(JSON.parse(copy.get(key) ?? 'null'), key).toEqual(JSON.parse(record));
          // Caught up: the same cursor again has nothing new.
          const after = await feedPage(tenant.client, userId, cursor, 500);
          expect(after.added.length + after.modified.length + after.removed.length).toBe(0);
          expect(after.nextCursor).toBe(cursor);
        }),
        3,
      );
    },
    propertyTimeout(300_000),
  );

  it(
    'refuses a cursor of another user, a foreign account and an expired cursor',
    async () => {
      const [first, second] = [await connectedUserAccounts(), await connectedUserAccounts()];
      // Only the first user's feed is read: the second's accounts and user need only exist.
      await Promise.all(first.accounts.map((a) => sync(a.id)));
      const page = await feedPage(tenant.client, first.userId, null, 5);
      expect(page.added).toHaveLength(5);
      expect(page.hasMore).toBe(true);

      const path = (userId: string, query: string) => `/v1/users/${userId}/transactions/changes?${query}`;
      const refused = await tenant.client.get(path(second.userId, `cursor=${page.nextCursor}`));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: { details: [{ field: 'cursor', issue: 'must be nextCursor of a page of this user’s feed' }] },
      });
      for (const bad of ['cursor=abc', 'cursor=%25%25', 'limit=0', 'limit=501', 'accountId=nope']) {
        expect((await tenant.client.get(path(first.userId, bad))).status, bad).toBe(400);
      }
      const foreign = await tenant.client.get(path(first.userId, `accountId=${second.accounts[0].id}`));
      expect(foreign.status).toBe(404);
      const other = await onboard(stack);
      expect((await other.client.get(path(first.userId, ''))).status).toBe(404);

      // One account's changes only.
      const own = dataOf<Change>(
        await tenant.client.get(path(first.userId, `accountId=${first.accounts[1].id}&limit=500`)),
        200,
      );
      expect(own.added.every((c) => c.accountId === first.accounts[1].id)).toBe(true);

      // A removal at the bank, synced, then pruned as too old: a cursor from before it is told, not misled.
      let account = first.accounts[0];
      let victim: { id: string } | undefined;
      for (account of first.accounts) {
        [victim] = await storedTransactions(tenant.client, account.id, 'limit=1');
        if (victim) break;
      }
      if (!victim) throw new Error('the sandbox bank gave the user no transactions');
      await sandbox.admin(
        'DELETE',
        `/consents/${account.bankConsent}/accounts/${account.upstreamId}/transactions/${victim.id}`,
      );
      await sync(account.id);
      await db().rows({
        text: `UPDATE transaction_changes SET changed_at = now() - interval '400 days' WHERE user_id = $1 AND removed`,
        values: [first.userId],
      });
      expect((await stack.api.app.get(TransactionChangesRetentionService).prune()).transactionRemovals).toBe(
        1,
      );
      const gone = await tenant.client.get(path(first.userId, `cursor=${page.nextCursor}`));
      expect(gone.status).toBe(410);
      expect((gone.body as { error: { code: string } }).error.code).toBe('CURSOR_EXPIRED');
      // Without a cursor the feed starts again: every stored record, the removed one not among them.
      const again = await feedPage(tenant.client, first.userId, null, 500);
      expect(again.removed).toHaveLength(0);
      expect(again.added.some((c) => c.transaction.id === victim.id)).toBe(false);
    },
    CURSOR_TEST_MS,
  );
});
