import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import {
  ApiClient,
  createMerchant,
  eventually,
  spawnApi,
  type Stack,
  startStack,
  tuned,
  useStack,
  WAIT,
  type WorkerProcess,
} from './kit/index.js';

/**
 * Verified credentials are cached per api instance (no database round trip per request), and a
 * revocation made through one instance reaches every other within seconds, through Redis.
 */
describe('api: the credential cache across two api instances', () => {
  const stack = useStack({ overrides: { ...tuned({ authCacheSeconds: 300 }) } });
  let first: Stack['api'];
  let second: Stack['api'];

  beforeAll(async () => {
    // Two apps in one process. Passport keeps one strategy per name per process, so both authenticate
    // through the last one's cache: what crosses processes is proven below, with a real second process.
    first = stack.api;
    second = await stack.startApi();
  });

  it('serves a cached key without the database, and refuses it at once once revoked', async () => {
    const { merchant, apiKey } = await createMerchant(first);
    const onFirst = new ApiClient(first.url, apiKey.key);
    const onSecond = new ApiClient(second.url, apiKey.key);
    expect((await onFirst.get('/v1/me')).status).toBe(200);
    expect((await onSecond.get('/v1/me')).status).toBe(200);

    // Revoked in the database behind the api's back: the cached verification still serves, so no
    // request went to Postgres for it.
    const prisma = first.app.get(PrismaService);
    await prisma.apiKey.update({ where: { id: apiKey.id }, data: { revokedAt: new Date() } });
    expect((await onSecond.get('/v1/me')).status).toBe(200);
    await prisma.apiKey.update({ where: { id: apiKey.id }, data: { revokedAt: null } });

    // Revoked through the operator route of the instance whose cache serves this process: it is told
    // before it answers, so its very next request is refused (other processes hear through Redis,
    // proven below). Revoking through the other app here would race Redis: its own cache is not the one
    // passport uses in this process.
    const operator = new ApiClient(second.url, stack.api.config.api.adminToken);
    const revoked = await operator.delete(`/admin/merchants/${merchant.id}/api-keys/${apiKey.id}`);
    expect(revoked.status).toBe(204);
    expect((await onSecond.get('/v1/me')).status).toBe(401);
    expect((await onFirst.get('/v1/me')).status).toBe(401);
  });
});

describe('api: a revocation reaches another api process', () => {
  let stack: Stack;
  let second: WorkerProcess & { url: string };

  beforeAll(async () => {
    stack = await startStack({ overrides: { ...tuned({ authCacheSeconds: 300 }) } });
    second = await spawnApi({
      LOG_LEVEL: 'error',
      ...tuned({ authCacheSeconds: 300 }),
      UPSTREAM_BASE_URL: stack.sandbox.url,
    });
  });
  afterAll(async () => {
    await second?.stop();
    await stack?.close();
  });

  it('refuses a key revoked through one process on the other within 5 s', async () => {
    const { merchant, apiKey } = await createMerchant(stack.api);
    const onSecond = new ApiClient(second.url, apiKey.key);
    expect((await onSecond.get('/v1/me')).status).toBe(200);
    expect(
      (await stack.operator.delete(`/admin/merchants/${merchant.id}/api-keys/${apiKey.id}`)).status,
    ).toBe(204);
    await eventually(
      'the revoked key refused by the second api',
      async () => {
        expect((await onSecond.get('/v1/me')).status).toBe(401);
        return true;
      },
      WAIT.revocation,
      50,
    );
  });
});
