import Fastify from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import { serialisationSchema } from '../apps/api/src/system/response-schemas.js';
import {
  ApiClient,
  connect,
  createUser,
  dataOf,
  onboard,
  type Stack,
  type Tenant,
  useStack,
} from './kit/index.js';
import { checkResponseSchemas } from './kit/response-check.js';

/**
 * Every route's success bodies are written from the response schemas of the OpenAPI document
 * (fast-json-stringify). A schema may only make them faster: every api the kit starts holds each body to
 * the one JSON.stringify writes (`checkResponseSchemas`), in every test; here the same reads to an api
 * without response schemas give the same JSON, and the check itself is seen to catch a drift.
 */
describe('api: bodies written from response schemas', () => {
  const stack = useStack();
  let plain: Stack['api'];
  let tenant: Tenant;
  let accountId: string;

  beforeAll(async () => {
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

  it('answers the reads every page view makes as an api without response schemas does', async () => {
    const user = dataOf<{ reference: string }>(await tenant.client.get(`/v1/users/${tenant.userId}`));
    const paths = [
      '/v1/users?limit=100',
      '/v1/users?limit=2',
      `/v1/users?reference=${encodeURIComponent(user.reference)}`,
      `/v1/users/${tenant.userId}`,
      `/v1/users/${tenant.userId}/accounts`,
      `/v1/accounts/${accountId}`,
    ];
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

  it('the check answers 500 naming a field the document leaves out or types wrongly', async () => {
    const fastify = Fastify();
    checkResponseSchemas(fastify);
    const declared = serialisationSchema(
      { type: 'object', properties: { id: { type: 'string' }, count: { type: 'integer' } } },
      {},
    );
    const route = (body: unknown) => () => Promise.resolve(body);
    fastify.get('/same', { schema: { response: { 200: declared } } }, route({ id: 'a', count: 2 }));
    fastify.get('/extra', { schema: { response: { 200: declared } } }, route({ id: 'a', secret: 'x' }));
    fastify.get('/coerced', { schema: { response: { 200: declared } } }, route({ id: 'a', count: '2' }));
    try {
      expect((await fastify.inject('/same')).statusCode).toBe(200);
      const extra = await fastify.inject('/extra');
      expect([extra.statusCode, extra.json().message]).toEqual([
        500,
        expect.stringContaining('$.secret: dropped'),
      ]);
      const coerced = await fastify.inject('/coerced');
      expect([coerced.statusCode, coerced.json().message]).toEqual([
        500,
        expect.stringContaining('$.count: "2" ≠ 2'),
      ]);
    } finally {
      await fastify.close();
    }
  });

  it('writes a null as null whatever the document says, and every field of an open record and within it', async () => {
    const fastify = Fastify();
    checkResponseSchemas(fastify);
    const components = {
      Money: { type: 'object', properties: { amount: { type: 'string' } } },
      Record: {
        type: 'object',
        additionalProperties: true,
        properties: { id: { type: 'string' }, money: { $ref: '#/components/schemas/Money' } },
      },
    };
    const schema = serialisationSchema(
      {
        type: 'object',
        properties: {
          name: { type: 'string' },
          count: { type: 'integer' },
          money: { $ref: '#/components/schemas/Money' },
          record: { $ref: '#/components/schemas/Record' },
        },
      },
      components,
    );
    const body = {
      name: null,
      count: null,
      money: null,
      record: { id: 'r', bank: 'kept', money: { amount: '1.00', rate: 'kept too' } },
    };
    fastify.get('/nulls', { schema: { response: { 200: schema } } }, () => Promise.resolve(body));
    try {
      const answer = await fastify.inject('/nulls');
      expect([answer.statusCode, answer.json()]).toEqual([200, body]);
    } finally {
      await fastify.close();
    }
  });
});
