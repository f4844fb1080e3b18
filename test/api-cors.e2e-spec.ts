import { beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, onboard, sessionToken, uniqueName, useStack } from './kit/index.js';

describe('api: CORS limited to each merchant’s frontend origins', () => {
  /** A route both a key and a session call; `/v1/me` is the one route open to every origin (below). */
  const ROUTE = '/v1/institutions?limit=1';
  const stack = useStack();
  // Unique per run: the test database keeps merchants of earlier runs.
  const originA = `https://${uniqueName('a')}.example`;
  const originB = `https://${uniqueName('b')}.example`;
  let keyA: string;
  let sessionA: string;
  let expiredA: string;

  const preflight = (path: string, origin: string) =>
    stack.anonymous.call('OPTIONS', path, {
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization',
      },
    });

  beforeAll(async () => {
    const a = await onboard(stack, { frontendOrigins: [originA] });
    await createMerchant(stack.api, { frontendOrigins: [originB] });
    keyA = a.merchant.apiKey.key;
    sessionA = sessionToken(stack.api.config, { merchantId: a.merchant.merchant.id, userId: a.userId });
    expiredA = sessionToken(stack.api.config, { merchantId: a.merchant.merchant.id, userId: a.userId }, -60);
  });

  it('answers a /v1 preflight from an origin some merchant lists, with the allowed headers', async () => {
    const response = await preflight(ROUTE, originB);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(originB);
    const allowed = response.headers.get('access-control-allow-headers')?.toLowerCase() ?? '';
    for (const header of [
      'authorization',
      'content-type',
      'idempotency-key',
      'if-none-match',
      'x-request-id',
    ]) {
      expect(allowed).toContain(header);
    }
  });

  it('refuses a preflight from an unknown origin, and any preflight to operator routes', async () => {
    const unknown = await preflight(ROUTE, 'https://evil.example');
    expect(unknown.status).toBe(403);
    expect(unknown.headers.get('access-control-allow-origin')).toBeNull();
    expect(unknown.body).toMatchObject({ error: { code: 'FORBIDDEN' } });

    const admin = await preflight('/admin/merchants', originA);
    expect(admin.headers.get('access-control-allow-origin')).toBeNull();
    expect(admin.status).toBeGreaterThanOrEqual(400);
  });

  it("adds CORS headers to a /v1 answer only for the caller's own merchant's origins", async () => {
    for (const token of [keyA, sessionA]) {
      const own = await stack.anonymous.get(ROUTE, { token, headers: { origin: originA } });
      expect(own.status).toBe(200);
      expect(own.headers.get('access-control-allow-origin')).toBe(originA);
      expect(own.headers.get('access-control-expose-headers')).toContain('Retry-After');
      // A page revalidates its reads: it must be able to read the tag.
      expect(own.headers.get('access-control-expose-headers')).toContain('ETag');

      // Listed by another merchant: the preflight passes, but this merchant's answer stays unreadable.
      const foreign = await stack.anonymous.get(ROUTE, { token, headers: { origin: originB } });
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('lets a listed origin read a 401 (an expired session, no credential), and no other origin', async () => {
    for (const token of [expiredA, undefined]) {
      const refused = await stack.anonymous.get(ROUTE, { token, headers: { origin: originA } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('access-control-allow-origin')).toBe(originA);
      expect(refused.body).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });

      const unknown = await stack.anonymous.get(ROUTE, {
        token,
        headers: { origin: 'https://evil.example' },
      });
      expect(unknown.status).toBe(401);
      expect(unknown.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('never adds CORS headers to operator routes', async () => {
    const response = await stack.operator.get('/admin/merchants?limit=1', { headers: { origin: originA } });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets any origin read /v1/me, which says whether that origin is one the merchant allows', async () => {
    const stranger = `https://${uniqueName('elsewhere')}.example`;
    expect((await preflight(ROUTE, stranger)).status).toBe(403);
    const open = await preflight('/v1/me', stranger);
    expect(open.status).toBe(204);
    expect(open.headers.get('access-control-allow-origin')).toBe(stranger);
    for (const token of [keyA, sessionA]) {
      const elsewhere = await stack.anonymous.get('/v1/me', { token, headers: { origin: stranger } });
      expect(elsewhere.headers.get('access-control-allow-origin')).toBe(stranger);
      expect(elsewhere.body.data).toMatchObject({ frontendOrigins: [originA], originAllowed: false });
      const own = await stack.anonymous.get('/v1/me', { token, headers: { origin: originA } });
      expect(own.body.data).toMatchObject({ frontendOrigins: [originA], originAllowed: true });
      // A server's call names no origin: there is nothing to judge.
      const server = await stack.anonymous.get('/v1/me', { token });
      expect(server.body.data.frontendOrigins).toEqual([originA]);
      expect(server.body.data).not.toHaveProperty('originAllowed');
    }
    const refused = await stack.anonymous.get('/v1/me', { token: expiredA, headers: { origin: stranger } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(stranger);
  });
});
