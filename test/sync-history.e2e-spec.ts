import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import {
  type ApiClient,
  assertProperty,
  createConsentRow,
  createDueAccounts,
  createEndedSyncRuns,
  createUser,
  onboard,
  sessionToken,
  useStack,
  useTenant,
} from './kit/index.js';

describe('GET /v1/accounts/{accountId}/syncs: an account’s sync history', () => {
  const stack = useStack();
  let prisma: PrismaService;
  const tenant = useTenant(stack);

  beforeAll(() => {
    prisma = stack.api.app.get(PrismaService);
  });

  /** An account of a new user of the tenant, not due for a sync (nothing runs here), with `runs` runs. */
  async function accountWithRuns(runs: number) {
    const user = await createUser(stack.api.app.get(UserRepository), tenant.merchant.merchant.id);
    const consent = await createConsentRow(prisma, user);
    const [accountId] = await createDueAccounts(prisma, consent, 1, new Date(Date.now() + 86_400_000));
    const ids = await createEndedSyncRuns(prisma, { id: accountId, merchantId: user.merchantId }, runs);
    return { accountId, userId: user.id, ids };
  }

  /** Every page, following `meta.nextCursor`: the run ids in the order served, and the pages' sizes. */
  async function walk(client: ApiClient, accountId: string, limit: number) {
    const ids: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await client.get(`/v1/accounts/${accountId}/syncs?${query}`);
      expect(page.status).toBe(200);
      ids.push(...page.body.data.map((r: { id: string; accountId: string }) => r.id));
      sizes.push(page.body.data.length);
      cursor = page.body.meta.nextCursor;
      if (cursor) expect(page.body.links.next).toContain(`cursor=${cursor}`);
    } while (cursor);
    return { ids, sizes };
  }

  it('serves every run once, newest first, in pages of the size asked, whatever the count', async () => {
    await assertProperty(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 230 }),
        fc.integer({ min: 1, max: 100 }),
        async (count, limit) => {
          const { accountId, ids } = await accountWithRuns(count);
          const served = await walk(tenant.client, accountId, limit);
          expect(served.ids).toEqual([...ids].reverse());
          // Full pages, then the rest; an empty history is one empty page.
          expect(served.sizes.slice(0, -1).every((n) => n === limit)).toBe(true);
          expect(served.sizes.length).toBe(Math.max(1, Math.ceil(count / limit)));
        },
      ),
      12,
    );
  });

  it('shows each run as GET /v1/syncs/{id} does, to the account’s own user and merchant only', async () => {
    const { accountId, userId, ids } = await accountWithRuns(3);
    const [newest] = (await tenant.client.get(`/v1/accounts/${accountId}/syncs`)).body.data;
    expect(newest).toEqual((await tenant.client.get(`/v1/syncs/${ids[2]}`)).body.data);
    expect(newest).toMatchObject({ accountId, status: 'succeeded', trigger: 'scheduled' });

    const own = stack.anonymous.as(
      sessionToken(stack.api.config, { merchantId: tenant.merchant.merchant.id, userId }),
    );
    expect((await own.get(`/v1/accounts/${accountId}/syncs`)).body.data).toHaveLength(3);
    // Another user of the merchant, another merchant, an unknown or malformed id: all the same 404.
    const otherUser = stack.anonymous.as(
      sessionToken(stack.api.config, { merchantId: tenant.merchant.merchant.id, userId: tenant.userId }),
    );
    const otherMerchant = (await onboard(stack)).client;
    for (const [client, id] of [
      [otherUser, accountId],
      [otherMerchant, accountId],
      [tenant.client, '0190b3c4-0000-7000-8000-000000000000'],
      [tenant.client, 'not-an-id'],
    ] as const) {
      const refused = await client.get(`/v1/accounts/${id}/syncs`);
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe('NOT_FOUND');
    }
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=x',
      'cursor=***',
      `cursor=${Buffer.from('nope').toString('base64url')}`,
    ]) {
      const refused = await tenant.client.get(`/v1/accounts/${accountId}/syncs?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_FAILED');
    }
  });
});
