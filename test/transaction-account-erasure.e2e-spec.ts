import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { tenantOfRecord } from '#libs/context';
import { DatabasePool, PrismaService } from '#libs/database';
import { pageRows, TransactionRepository } from '#libs/domain/sync';
import { UserRepository } from '#libs/domain/users';
import type { Transaction } from '#libs/upstream-client';
import {
  createConsentRow,
  createDueAccounts,
  createUser,
  eventually,
  scratchDatabase,
  uniqueQueuePrefix,
  useStack,
  useTenant,
} from './kit/index.js';

/**
 * `transactions.account_id` loses its foreign key in a later release (its per-row check is an eighth of
 * Postgres's CPU in a first sync): what it guarantees is kept by the page writer's lock on the account and
 * a trigger on accounts. No row outlives its account, however the account goes, and none is written for an
 * account being erased.
 */
describe('transactions go with their account', () => {
  const stack = useStack({ overrides: { QUEUE_PREFIX: uniqueQueuePrefix('tx-erasure') } });
  const tenant = useTenant(stack);
  const db = () => stack.api.app.get(DatabasePool);
  const repository = () => stack.api.app.get(TransactionRepository);
  const merchantId = () => tenantOfRecord({ merchantId: tenant.merchant.merchant.id });

  const page = (prefix: string, count: number) =>
    pageRows(
      Array.from({ length: count }, (_, n): Transaction => ({
        id: `${prefix}-${n}`,
        date: '2026-01-02T10:00:00.000Z',
        amount: n + 0.5,
        currency: 'GBP',
        status: 'BOOKED',
      })),
      'GBP',
    );

  /** A user of the tenant's merchant with `count` accounts under one consent. */
  async function accountsOfNewUser(count: number) {
    const prisma = stack.api.app.get(PrismaService);
    const user = await createUser(stack.api.app.get(UserRepository), merchantId());
    const consent = await createConsentRow(prisma, { id: user.id, merchantId: merchantId() });
    return { userId: user.id, accounts: await createDueAccounts(prisma, consent, count) };
  }

  const append = (accountId: string, prefix: string, count = 3) =>
    db().transaction((client) =>
      repository().appendPage(
        merchantId(),
        client,
        accountId,
        page(prefix, count),
        crypto.randomUUID(),
        () => false,
      ),
    );

  async function storedCount(accountIds: string[]): Promise<number> {
    const [{ count }] = await db().rows<{ count: number }>({
      text: `SELECT count(*)::int AS count FROM transactions WHERE account_id = ANY($1::uuid[])`,
      values: [accountIds],
    });
    return count;
  }

  it('erases an account’s rows with it, alone or with its user, once the foreign key is gone', async () => {
    // The schema as the release that drops the foreign key leaves it, on a database of its own.
    const scratch = await scratchDatabase('tx-erasure');
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    try {
      await client.query('ALTER TABLE transactions DROP CONSTRAINT transactions_account_id_fkey');
      const one = async (text: string, values: unknown[] = []) => (await client.query(text, values)).rows[0];
      const { id: merchant } = await one(`INSERT INTO merchants (id, name, updated_at)
        VALUES (gen_random_uuid(), 'erasure', now()) RETURNING id`);
      const { id: user } = await one(
        `INSERT INTO users (id, merchant_id, reference, application_user_id, updated_at)
         VALUES (gen_random_uuid(), $1, 'u', 'u', now()) RETURNING id`,
        [merchant],
      );
      const { id: consent } = await one(
        `INSERT INTO consents (id, merchant_id, user_id, kind, upstream_consent_id, institution_id, status, updated_at)
         VALUES (gen_random_uuid(), $1, $2, 'ACCOUNT', 'c', 'bank', 'AUTHORIZED', now()) RETURNING id`,
        [merchant, user],
      );
      const accounts: string[] = [];
      for (const n of [1, 2, 3]) {
        const { id } = await one(
          `INSERT INTO accounts (id, merchant_id, user_id, consent_id, upstream_account_id, institution_id, updated_at)
           VALUES (gen_random_uuid(), $1, $2, $3, $4, 'bank', now()) RETURNING id`,
          [merchant, user, consent, `acc-${n}`],
        );
        await client.query(
          `INSERT INTO transactions (id, merchant_id, account_id, dedupe_key, date, status, amount, currency, raw, updated_at)
           SELECT gen_random_uuid(), $1, $2, 'k' || k, now(), 'BOOKED', 1, 'GBP', '{}', now()
           FROM generate_series(1, $3::int) AS k`,
          [merchant, id, n + 2],
        );
        accounts.push(id);
      }
      const counts = async () =>
        (
          await client.query<{ n: number }>(
            `SELECT count(t.id)::int AS n FROM unnest($1::uuid[]) WITH ORDINALITY AS a(id, at)
             LEFT JOIN transactions t ON t.account_id = a.id GROUP BY a.at ORDER BY a.at`,
            [accounts],
          )
        ).rows.map((r) => r.n);
      expect(await counts()).toEqual([3, 4, 5]);

      await client.query('DELETE FROM accounts WHERE id = $1', [accounts[0]]);
      expect(await counts()).toEqual([0, 4, 5]);
      // The user's accounts go by their own foreign key's cascade: the trigger erases their rows too.
      await client.query('DELETE FROM users WHERE id = $1', [user]);
      expect(await counts()).toEqual([0, 0, 0]);
    } finally {
      await client.end();
      await scratch.drop();
    }
  });

  it('writes no page for an account erased before it, by COPY or by upsert', async () => {
    const { accounts } = await accountsOfNewUser(1);
    const [accountId] = accounts;
    await db().rows({ text: `DELETE FROM accounts WHERE id = $1`, values: [accountId] });
    await expect(append(accountId, 'gone')).rejects.toThrow(/is gone/);
    await expect(
      db().transaction((client) =>
        repository().writePage(merchantId(), client, accountId, page('gone', 2), {
          id: crypto.randomUUID(),
          again: false,
        }),
      ),
    ).rejects.toThrow(/is gone/);
    expect(await storedCount([accountId])).toBe(0);
  });

  it('makes an account erased while a page is written wait for it, then erases the page too', async () => {
    const { accounts } = await accountsOfNewUser(1);
    const [accountId] = accounts;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const pageIn = new Promise<void>((resolve) => (written = resolve));
    // The page's transaction stays open (rows in, lock held) until the erasure is seen waiting for it.
    const writing = db().transaction(async (client) => {
      await repository().appendPage(
        merchantId(),
        client,
        accountId,
        page('w', 5),
        crypto.randomUUID(),
        () => false,
      );
      written();
      await held;
    });
    await pageIn;
    const erasing = db().rows({
      text: `DELETE FROM accounts WHERE id = $1 RETURNING id`,
      values: [accountId],
    });
    await eventually('the erasure waiting for the page’s lock', async () => {
      const [row] = await db().rows<{ waiting: number }>({
        text: `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM accounts WHERE id = $1%'`,
        values: [],
      });
      return row.waiting > 0 ? true : undefined;
    });
    release();
    await writing;
    expect(await erasing).toHaveLength(1);
    expect(await storedCount([accountId])).toBe(0);
  });
});
