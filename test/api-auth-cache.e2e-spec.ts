import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '#libs/config';
import { PrismaService } from '#libs/database';
import { createMerchant } from '#libs/testing';
import { ApiClient } from './support/api-kit.js';
import { startApi, startSandbox, type RunningHttpApp } from './support/running-apps.js';

type Api = RunningHttpApp & { config: AppConfig };

/**
 * Verified credentials are cached per api instance (no database round trip per request), and a
 * revocation made through one instance reaches every other within seconds, through Redis.
 */
describe('api: the credential cache across two api instances', () => {
  let sandbox: RunningHttpApp;
  let first: Api;
  let second: Api;

  beforeAll(async () => {
    sandbox = await startSandbox();
    // Two apps, two caches, two Redis connections: they share only Postgres and Redis, like two processes.
    first = await startApi(sandbox.url, { LOG_LEVEL: 'error', AUTH_CACHE_SECONDS: '300' });
    second = await startApi(sandbox.url, { LOG_LEVEL: 'error', AUTH_CACHE_SECONDS: '300' });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
    await sandbox?.close();
  });

  it('serves a cached key without the database, and refuses it everywhere within 5 s of its revocation', async () => {
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

    // Revoked through the operator route on the first instance: the second hears of it through Redis.
    const operator = new ApiClient(first.url, first.config.api.adminToken);
    const revoked = await operator.delete(`/admin/merchants/${merchant.id}/api-keys/${apiKey.id}`);
    expect(revoked.status).toBe(204);
    expect((await onFirst.get('/v1/me')).status).toBe(401);
    await expect
      .poll(async () => (await onSecond.get('/v1/me')).status, { timeout: 5_000, interval: 50 })
      .toBe(401);
  });
});
