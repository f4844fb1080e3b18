import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import { REDIS } from '#libs/redis';
import {
  ApiClient,
  type ApiResponse,
  captureLogger,
  createMerchant,
  createUser,
  dataOf,
  sessionToken,
  type Stack,
  startStack,
  uniqueQueuePrefix,
  useStack,
} from './kit/index.js';

/** GET `path` with `token` (none when undefined), and any other headers. */
const errorCode = (response: ApiResponse) => (response.body as { error: { code: string } }).error.code;

describe('api: authentication (operator, merchant API keys, user sessions)', () => {
  const logs = captureLogger('api');
  const stack = useStack({ overrides: { LOG_LEVEL: 'trace' }, loggers: { api: logs.logger } });
  let api: Stack['api'];
  let client: ApiClient;

  beforeAll(() => {
    api = stack.api;
    client = stack.anonymous;
  });

  it('lets a merchant key and a session of its user call /v1/me, naming the merchant', async () => {
    const { merchant, apiKey } = await createMerchant(api);
    const byKey = await client.as(apiKey.key).get('/v1/me');
    expect(byKey.status).toBe(200);
    expect(byKey.body).toMatchObject({
      data: { kind: 'merchant', merchantId: merchant.id },
      meta: { tracingId: byKey.headers.get('x-request-id') },
    });

    const user = await createUser(api.app.get(UserRepository), merchant.id);
    const bySession = await client
      .as(sessionToken(api.config, { merchantId: merchant.id, userId: user.id }))
      .get('/v1/me');
    expect(bySession.status).toBe(200);
    expect(bySession.body).toMatchObject({
      data: { kind: 'user-session', merchantId: merchant.id, userId: user.id },
    });
  });

  it('answers 401 UNAUTHENTICATED without credentials, with unknown ones and with a wrong scheme', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer mk_notarealkey000000000000000000000' },
      { authorization: 'Bearer something-else' },
      { authorization: 'Basic dXNlcjpwYXNz' },
    ]) {
      const response = await client.get('/v1/me', { headers });
      expect(response.status).toBe(401);
      expect(errorCode(response)).toBe('UNAUTHENTICATED');
    }
  });

  it('answers 403 FORBIDDEN to valid credentials of a kind the route refuses', async () => {
    const { merchant, apiKey } = await createMerchant(api);
    const user = await createUser(api.app.get(UserRepository), merchant.id);
    const session = sessionToken(api.config, { merchantId: merchant.id, userId: user.id });
    for (const token of [apiKey.key, session]) {
      const response = await client.as(token).get(`/admin/merchants/${merchant.id}`);
      expect(response.status).toBe(403);
      expect(errorCode(response)).toBe('FORBIDDEN');
    }
    // A merchant's figures across its users are not its customers' to read.
    for (const path of ['/v1/insights/conversion', '/v1/insights/institution-health']) {
      const bySession = await client.as(session).get(path);
      expect(bySession.status, path).toBe(403);
      expect(errorCode(bySession)).toBe('FORBIDDEN');
      expect((await client.as(apiKey.key).get(path)).status, path).toBe(200);
    }
    const operatorOnV1 = await client.as(api.config.api.adminToken).get('/v1/me');
    expect(operatorOnV1.status).toBe(403);
  });

  it('refuses expired, tampered, foreign-secret and deleted-user session tokens with 401', async () => {
    const { merchant, apiKey } = await createMerchant(api);
    const users = api.app.get(UserRepository);
    const user = await createUser(users, merchant.id);
    const subject = { merchantId: merchant.id, userId: user.id };
    const valid = sessionToken(api.config, subject);
    const [body, signature] = valid.slice(3).split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), exp: 9_999_999_999 }),
    ).toString('base64url');
    const otherSecret = sessionToken(
      { ...api.config, crypto: { ...api.config.crypto, signingSecret: 'x'.repeat(40) } },
      subject,
    );
    for (const token of [
      sessionToken(api.config, subject, -5),
      `us_${forged}.${signature}`,
      `${valid}x`,
      otherSecret,
      'us_garbage',
    ]) {
      const response = await client.as(token).get('/v1/me');
      expect(response.status, token.slice(0, 12)).toBe(401);
    }
    expect((await client.as(valid).get('/v1/me')).status).toBe(200);
    // Erased through the route, as a merchant would: the cached session dies with the user.
    const erased = await client.delete(`/v1/users/${user.id}`, { token: apiKey.key });
    expect(erased.status).toBe(204);
    expect((await client.as(valid).get('/v1/me')).status).toBe(401);
  });

  it('refuses a revoked key, keeps the old key working after rotation, and records use', async () => {
    const { merchant, apiKey } = await createMerchant(api);
    const rotated = await stack.operator.post(`/admin/merchants/${merchant.id}/api-keys`, { name: 'second' });
    const second = dataOf<{ id: string; key: string }>(rotated, 201);
    expect((await client.as(apiKey.key).get('/v1/me')).status).toBe(200);
    expect((await client.as(second.key).get('/v1/me')).status).toBe(200);

    const revoked = await stack.operator.delete(`/admin/merchants/${merchant.id}/api-keys/${apiKey.id}`);
    expect(revoked.status).toBe(204);
    expect((await client.as(apiKey.key).get('/v1/me')).status).toBe(401);
    expect((await client.as(second.key).get('/v1/me')).status).toBe(200);

    const prisma = api.app.get(PrismaService);
    const rows = await prisma.apiKey.findMany({ where: { merchantId: merchant.id } });
    expect(rows.find((r) => r.id === second.id)?.lastUsedAt).not.toBeNull();
  });

  it('refuses every key of a disabled merchant with 403 MERCHANT_DISABLED, and a wrong key as ever', async () => {
    const { merchant, apiKey } = await createMerchant(api);
    await api.app
      .get(PrismaService)
      .merchant.update({ where: { id: merchant.id }, data: { disabledAt: new Date() } });
    const refused = await client.as(apiKey.key).get('/v1/me');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('MERCHANT_DISABLED');
    // Only a key that is itself good learns the merchant's state.
    expect((await client.as(`${apiKey.key.slice(0, -2)}zz`).get('/v1/me')).status).toBe(401);
  });

  it('never writes API keys, session tokens or the admin token to the logs', async () => {
    const { merchant, apiKey } = await createMerchant(api);
    const user = await createUser(api.app.get(UserRepository), merchant.id);
    const session = sessionToken(api.config, { merchantId: merchant.id, userId: user.id });
    await client.as(apiKey.key).get('/v1/me');
    await client.as(session).get('/v1/me');
    await client.as(`${apiKey.key}tampered`).get('/v1/me');
    await client.as('us_bad.token').get(`/v1/me?token=${session}`);
    const text = logs.text();
    expect(text).toContain('"route":"/v1/me"');
    expect(text).not.toContain(apiKey.key);
    expect(text).not.toContain(session);
    expect(text).not.toContain(session.slice(3, 40));
    expect(text).not.toContain(api.config.api.adminToken);
  });
});

describe('api: per-merchant rate limits shared by every api process', () => {
  /** The api of a stack and a second one beside it, on the same Redis: clients of each, and the stack. */
  async function twoApis(overrides: Record<string, string>) {
    const stack = await startStack({ overrides });
    const second = await stack.startApi();
    return { stack, first: stack.anonymous, second: new ApiClient(second.url) };
  }

  it('trips with 429 RATE_LIMITED and Retry-After, counting requests to two api instances together', async () => {
    const { stack, first, second } = await twoApis({
      RATE_LIMIT_PER_MINUTE: '3',
      QUEUE_PREFIX: uniqueQueuePrefix('rl'),
    });
    try {
      const { apiKey } = await createMerchant(stack.api);
      const { apiKey: other } = await createMerchant(stack.api);
      expect((await first.as(apiKey.key).get('/v1/me')).status).toBe(200);
      expect((await second.as(apiKey.key).get('/v1/me')).status).toBe(200);
      const third = await first.as(apiKey.key).get('/v1/me');
      expect(third.status).toBe(200);
      expect(third.headers.get('x-ratelimit-remaining')).toBe('0');
      const limited = await second.as(apiKey.key).get('/v1/me');
      expect(limited.status).toBe(429);
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.body).toMatchObject({ error: { code: 'RATE_LIMITED', status: 429 } });
      // Another merchant has its own budget.
      expect((await second.as(other.key).get('/v1/me')).status).toBe(200);
      // The operator is not limited.
      for (let i = 0; i < 4; i += 1) {
        expect((await first.as(stack.api.config.api.adminToken).get('/admin/merchants?limit=1')).status).toBe(
          200,
        );
      }
    } finally {
      await stack.close();
    }
  });

  it('serves a burst from leases without ever passing the limit, and uses every request of it', async () => {
    const prefix = uniqueQueuePrefix('rl-burst');
    const { stack, first, second } = await twoApis({ RATE_LIMIT_PER_MINUTE: '40', QUEUE_PREFIX: prefix });
    try {
      const { merchant, apiKey } = await createMerchant(stack.api);
      // 100 requests at once, half to each process: exactly the limit is served, the rest refused.
      const statuses = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          (i % 2 ? first : second)
            .as(apiKey.key)
            .get('/v1/me')
            .then((response) => {
              if (response.status === 429) expect(errorCode(response)).toBe('RATE_LIMITED');
              return response.status;
            }),
        ),
      );
      expect(statuses.filter((s) => s === 200)).toHaveLength(40);
      expect(statuses.filter((s) => s === 429)).toHaveLength(60);
      // Leased is used: the shared count is the limit, not more.
      const redis = stack.api.app.get<import('ioredis').Redis>(REDIS);
      expect(await redis.get(`${prefix}:rl:m:${merchant.id}`)).toBe('40');
      // Refused from memory until the window ends, by both processes.
      expect((await first.as(apiKey.key).get('/v1/me')).status).toBe(429);
      expect((await second.as(apiKey.key).get('/v1/me')).status).toBe(429);
    } finally {
      await stack.close();
    }
  });
});
