import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import { identityKeys } from '#libs/domain/accounts';
import { UserRepository } from '#libs/domain/users';
import {
  assertProperty,
  connectBank,
  createUser,
  propertyTimeout,
  sandboxOf,
  syncToEnd,
  uniqueQueuePrefix,
  upstreamTransactions,
  useStack,
  useTenant,
} from '../kit/index.js';

/**
 * Issue 24, item 3, as an invariant: whatever a user does with one bank (connect it, connect it twice at
 * once, revoke a consent here or at the bank, let the bank expire it, sync, connect again), and whether
 * the bank keeps its account ids or issues new ones per consent,
 * - the user's accounts are exactly the bank's distinct accounts (three), with the ids the first
 *   connection gave them, all held by the consent authorised last;
 * - an account's stored transactions are the bank's, none twice, and a synced history is never lost.
 *
 * Everything is real: the api's routes and callback, Postgres, the sandbox over HTTP. The test runs the
 * syncs itself (no worker), so it decides when they happen.
 */

type Step =
  | 'connect'
  | 'connect-twice-at-once'
  | 'revoke'
  | 'revoke-at-bank'
  | 'expire-at-bank'
  | 'sync-savings'
  | 'sync-current';

const step: fc.Arbitrary<Step> = fc.constantFrom(
  'connect',
  'connect-twice-at-once',
  'revoke',
  'revoke-at-bank',
  'expire-at-bank',
  'sync-savings',
  'sync-current',
);

interface AccountRow {
  id: string;
  consentId: string;
  upstreamAccountId: string;
  type: string | null;
  accountIdentifications: unknown;
}

describe('property: reconnecting a bank keeps exactly the bank’s accounts, their ids and history', () => {
  const stack = useStack({
    overrides: { QUEUE_PREFIX: uniqueQueuePrefix('reconnect-props') },
  });
  const tenant = useTenant(stack);
  const sandbox = sandboxOf(stack);
  afterAll(async () => {
    if (stack.sandbox)
      await sandbox.admin('PUT', '/institutions/sandbox-redirect/quirks', { accountIdsPerConsent: false });
  });

  const db = () => stack.api.app.get(DatabasePool);
  const apps = () => ({ apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url });
  const client = () => tenant.client;

  const accountsOf = (userId: string) =>
    db().rows<AccountRow>({
      text: `SELECT id, consent_id AS "consentId", upstream_account_id AS "upstreamAccountId", type,
          account_identifications AS "accountIdentifications"
        FROM accounts WHERE user_id = $1 ORDER BY id`,
      values: [userId],
    });
  const statusOf = async (consentId: string) =>
    (
      await db().rows<{ status: string }>({
        text: 'SELECT status FROM consents WHERE id = $1',
        values: [consentId],
      })
    )[0].status;

  /** The consent refused at the bank is met by a read, which marks it (as a merchant's read would). */
  async function endAtBank(consentId: string, how: 'revoke' | 'expire', accountId: string | undefined) {
    const [{ upstream }] = await db().rows<{ upstream: string }>({
      text: 'SELECT upstream_consent_id AS upstream FROM consents WHERE id = $1',
      values: [consentId],
    });
    expect((await sandbox.admin('POST', `/consents/${upstream}/${how}`)).status).toBeLessThan(300);
    if (accountId) {
      const read = await client().get(`/v1/accounts/${accountId}/transactions/live`);
      expect(read.status).toBe(409);
    }
  }

  /** A sync of one of the user's accounts, run here as the worker would; then its stored set is the bank's. */
  async function syncAccount(userId: string, holder: string, type: RegExp): Promise<string[]> {
    const account = (await accountsOf(userId)).find((a) => type.test(a.type ?? ''))!;
    expect(await syncToEnd(stack, tenant, account.id)).toBe('succeeded');
    const stored = (
      await db().rows<{ k: string }>({
        text: 'SELECT dedupe_key AS k FROM transactions WHERE account_id = $1',
        values: [account.id],
      })
    ).map((r) => r.k);
    const upstream = await upstreamTransactions(stack, holder, account.upstreamAccountId);
    expect(new Set(stored).size, 'no transaction twice').toBe(stored.length);
    expect(stored.map((k) => k.replace(/^id:/, '')).sort()).toEqual(upstream.map((t) => t.id).sort());
    return stored;
  }

  it(
    'any sequence of connections, revocations, expiries and syncs: the bank’s accounts once, ids stable, no transaction twice',
    async () => {
      await assertProperty(
        fc.asyncProperty(
          fc.array(step, { minLength: 1, maxLength: 6 }),
          fc.boolean(),
          async (steps, idsPerConsent) => {
            await sandbox.admin('PUT', '/institutions/sandbox-redirect/quirks', {
              accountIdsPerConsent: idsPerConsent,
            });
            const userId = (await createUser(stack.api.app.get(UserRepository), tenant.merchant.merchant.id))
              .id;
            const connect = () => connectBank(apps(), tenant.merchant.apiKey.key, userId);
            const consents: string[] = [];
            let holder: string | undefined;
            let firstIds: string[] | undefined;
            const history: Record<string, string[]> = {};
            for (const s of steps) {
              const mine = await accountsOf(userId);
              if (s === 'connect') {
                holder = await connect();
                consents.push(holder);
              } else if (s === 'connect-twice-at-once') {
                const both = await Promise.all([connect(), connect()]);
                consents.push(...both);
                holder = undefined; // one of the two: read below
              } else if (holder === undefined && consents.length === 0) {
                continue; // nothing connected yet: nothing to end or sync
              } else if (s === 'revoke') {
                const id = holder ?? mine[0].consentId;
                expect((await client().delete(`/v1/consents/${id}`)).status).toBeLessThan(300);
              } else if (s === 'revoke-at-bank' || s === 'expire-at-bank') {
                const id = holder ?? mine[0].consentId;
                if ((await statusOf(id)) === 'AUTHORIZED') {
                  await endAtBank(id, s === 'revoke-at-bank' ? 'revoke' : 'expire', mine[0]?.id);
                }
              } else {
                const id = holder ?? mine[0].consentId;
                if ((await statusOf(id)) === 'AUTHORIZED') {
                  const kind = s === 'sync-savings' ? 'savings' : 'current';
                  const stored = await syncAccount(userId, id, new RegExp(kind, 'i'));
                  expect(stored, 'a synced history is kept').toEqual(
                    expect.arrayContaining(history[kind] ?? []),
                  );
                  history[kind] = stored;
                }
              }

              const accounts = await accountsOf(userId);
              if (consents.length === 0) {
                expect(accounts).toEqual([]);
                continue;
              }
              // Exactly the bank's three accounts: one row each, told apart by what identifies them.
              expect(accounts, `after ${s}`).toHaveLength(3);
              const identities = accounts.map((a) => identityKeys(a.accountIdentifications).sort().join('|'));
              expect(new Set(identities).size).toBe(3);
              firstIds ??= accounts.map((a) => a.id);
              expect(
                accounts.map((a) => a.id),
                'the ids of the first connection',
              ).toEqual(firstIds);
              // All with one consent: the one connected last (of two at once, either).
              const holders = new Set(accounts.map((a) => a.consentId));
              expect(holders.size).toBe(1);
              const [current] = holders;
              if (holder !== undefined) expect(current).toBe(holder);
              else expect(consents.slice(-2)).toContain(current);
              holder = current;
            }
          },
        ),
        20,
      );
    },
    propertyTimeout(120_000),
  );
});
