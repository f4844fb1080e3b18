import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import { createUser } from '#libs/testing';
import { HOT_ROUTES } from '../apps/api/src/system/response-schemas.js';
import {
  ApiClient,
  connect,
  dataOf,
  onboard,
  type Stack,
  startStack,
  type Tenant,
} from './support/api-kit.js';

/**
 * The hot routes' bodies are written from response schemas (fast-json-stringify). A schema may only
 * make them faster: the same requests to an api without response schemas (plain JSON.stringify) must
 * give the same JSON, every field present, no value coerced.
 */
describe('api: bodies written from response schemas', () => {
  let stack: Stack;
  let plain: Stack['api'];
  let tenant: Tenant;
  let accountId: string;

  beforeAll(async () => {
    stack = await startStack();
    plain = await stack.startApi({}, { responseSchemas: false });
    tenant = await onboard(stack);
    await connect(stack, tenant);
    for (let i = 0; i < 3; i += 1) {
      await createUser(stack.api.app.get(UserRepository), tenant.merchant.merchant.id);
    }
    const accounts = dataOf<{ id: string; type: string }[]>(
      await tenant.client.get(`/v1/users/${tenant.userId}/accounts`),
    );
    accountId = accounts.find((a) => a.type === 'CURRENT')!.id;
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('matches JSON.stringify on every hot route', async () => {
    const user = dataOf<{ reference: string }>(await tenant.client.get(`/v1/users/${tenant.userId}`));
    const paths = [
      '/v1/users?limit=100',
      '/v1/users?limit=2',
      `/v1/users?reference=${encodeURIComponent(user.reference)}`,
      `/v1/users/${tenant.userId}`,
      `/v1/users/${tenant.userId}/accounts`,
      `/v1/accounts/${accountId}`,
    ];
    // Every hot route is exercised here.
    const covered = new Set(paths.map((p) => p.split('?')[0].replace(/[0-9a-f-]{36}/g, '{id}')));
    expect(covered.size).toBe(HOT_ROUTES.length);
    const fast = tenant.client;
    const slow = new ApiClient(plain.url, tenant.merchant.apiKey.key);
    const withoutTracing = (body: { meta?: Record<string, unknown> }) => ({
      ...body,
      meta: { ...body.meta, tracingId: undefined },
    });
    for (const path of paths) {
      const [a, b] = await Promise.all([fast.get(path), slow.get(path)]);
      expect([path, a.status]).toEqual([path, 200]);
      expect(b.status).toBe(200);
      expect(withoutTracing(a.body)).toEqual(withoutTracing(b.body));
    }
  });

  it('writes the timestamps the SQL reads return as ISO text exactly as a Date would print them', async () => {
    const prisma = stack.api.app.get(PrismaService);
    const user = await prisma.user.findUniqueOrThrow({ where: { id: tenant.userId } });
    const listed = dataOf<{ id: string; createdAt: string; updatedAt: string }[]>(
      await tenant.client.get('/v1/users?limit=100'),
    ).find((u) => u.id === tenant.userId);
    expect(listed).toMatchObject({
      createdAt: user.createdAt.toISOString(),
      updatedAt: user.updatedAt.toISOString(),
    });
    const account = await prisma.account.findUniqueOrThrow({
      where: { id: accountId },
      include: { balances: { orderBy: { type: 'asc' } } },
    });
    const view = dataOf<{
      createdAt: string;
      updatedAt: string;
      sync: { lastSyncedAt: string | null };
      balances: { type: string; dateTime: string | null; balance: { amount: string } }[];
    }>(await tenant.client.get(`/v1/accounts/${accountId}`));
    expect(view.createdAt).toBe(account.createdAt.toISOString());
    expect(view.updatedAt).toBe(account.updatedAt.toISOString());
    expect(view.sync.lastSyncedAt).toBe(account.lastSyncedAt?.toISOString() ?? null);
    expect(view.balances.map((b) => [b.type, b.dateTime])).toEqual(
      account.balances.map((b) => [b.type, b.dateTime?.toISOString() ?? null]),
    );
    expect(account.balances.some((b) => b.dateTime !== null)).toBe(true);
  });
});
