import { beforeAll, describe, expect, it } from 'vitest';
import { createBffClient } from '../libs/merchant-sdk/src/index.js';
import { type ApiClient, type ApiResponse, createMerchant, useStack } from './kit/index.js';

const errorCode = (response: ApiResponse) => (response.body as { error: { code: string } }).error.code;
/** The cookie a sign-in set, as a browser would send it back. */
const cookieOf = (response: ApiResponse) => response.headers.get('set-cookie')!.split(';')[0];
/** Everything a client can read of an answer, to look for a credential in it. */
const everything = (response: ApiResponse) =>
  JSON.stringify(response.body) + JSON.stringify([...response.headers.entries()]);

describe('api: console sessions (POST/DELETE /console/session, the cookie as a credential)', () => {
  const stack = useStack();
  let client: ApiClient;
  let ownOrigin: string;

  beforeAll(() => {
    client = stack.anonymous;
    ownOrigin = new URL(stack.api.config.api.publicUrl).origin;
  });

  const signIn = (body: unknown, headers: Record<string, string> = {}) =>
    client.post('/console/session', body, { headers });
  const withCookie = (cookie: string, headers: Record<string, string> = {}) => ({
    headers: { cookie, ...headers },
  });

  it('exchanges an API key for an HttpOnly, SameSite=Strict cookie that never holds or echoes the key', async () => {
    const { merchant, apiKey } = await createMerchant(stack.api);
    const signedIn = await signIn({ apiKey: apiKey.key });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ data: { kind: 'merchant', merchantId: merchant.id } });
    const setCookie = signedIn.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^bff_console=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    expect(Number(/Max-Age=(\d+)/.exec(setCookie)![1])).toBeLessThanOrEqual(8 * 3600);
    expect(everything(signedIn)).not.toContain(apiKey.key);

    const me = await client.get('/v1/me', withCookie(cookieOf(signedIn)));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ data: { kind: 'merchant', merchantId: merchant.id } });
    const keys = await client.get('/v1/merchant/api-keys', withCookie(cookieOf(signedIn)));
    expect(keys.status).toBe(200);
    for (const response of [me, keys]) expect(everything(response)).not.toContain(apiKey.key);
    // The operator's routes refuse a merchant's session as they refuse its key.
    const admin = await client.get('/admin/merchants', withCookie(cookieOf(signedIn)));
    expect(admin.status).toBe(403);
  });

  it('answers 400 in the envelope unless exactly one credential comes, 401 for a wrong one', async () => {
    for (const body of [{}, { apiKey: 'mk_a', operatorToken: 'b' }, { apiKey: 5 }, { apiKey: '' }]) {
      const response = await signIn(body);
      expect(response.status).toBe(400);
      expect(errorCode(response)).toBe('VALIDATION_FAILED');
    }
    for (const body of [
      { apiKey: 'mk_notarealkey000000000000000000000' },
      { apiKey: 'not-a-key' },
      { operatorToken: 'not-the-operator-token' },
    ]) {
      const response = await signIn(body);
      expect(response.status).toBe(401);
      expect(errorCode(response)).toBe('UNAUTHENTICATED');
      expect(response.headers.get('set-cookie')).toBeNull();
    }
  });

  it('signs the operator in on /admin routes only', async () => {
    const signedIn = await signIn({ operatorToken: stack.api.config.api.adminToken });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ data: { kind: 'operator' } });
    expect(everything(signedIn)).not.toContain(stack.api.config.api.adminToken);
    const cookie = cookieOf(signedIn);
    expect((await client.get('/admin/merchants', withCookie(cookie))).status).toBe(200);
    expect((await client.get('/v1/me', withCookie(cookie))).status).toBe(403);
    // A process given another operator token takes none of the old token's sessions.
    const rotated = await stack.startApi({ ADMIN_TOKEN: 'another-operator-token-0123456789abcdef' });
    try {
      const elsewhere = await fetch(`${rotated.url}/admin/merchants`, { headers: { cookie } });
      expect(elsewhere.status).toBe(401);
    } finally {
      await rotated.close();
    }
    // Nor does anything a session was not signed as: forged, truncated or another cookie's value.
    for (const forged of ['bff_console=', 'bff_console=x.y', `${cookie}x`, 'bff_console=mk_notakey'])
      expect((await client.get('/admin/merchants', withCookie(forged))).status, forged).toBe(401);
  });

  it('ends a merchant session at once when its key is revoked or its merchant disabled', async () => {
    const { merchant, apiKey } = await createMerchant(stack.api);
    const cookie = cookieOf(await signIn({ apiKey: apiKey.key }));
    expect((await client.get('/v1/me', withCookie(cookie))).status).toBe(200);
    await stack.operator.post(`/admin/merchants/${merchant.id}/disable`);
    const disabled = await client.get('/v1/me', withCookie(cookie));
    expect(disabled.status).toBe(403);
    expect(errorCode(disabled)).toBe('MERCHANT_DISABLED');
    await stack.operator.post(`/admin/merchants/${merchant.id}/enable`);
    expect((await client.get('/v1/me', withCookie(cookie))).status).toBe(200);

    const revoked = await stack.operator.delete(`/admin/merchants/${merchant.id}/api-keys/${apiKey.id}`);
    expect(revoked.status).toBe(204);
    const after = await client.get('/v1/me', withCookie(cookie));
    expect(after.status).toBe(401);
    expect(errorCode(after)).toBe('UNAUTHENTICATED');
    expect((await signIn({ apiKey: apiKey.key })).status).toBe(401);
  });

  it('refuses a change the cookie authenticates unless it comes from the api origin', async () => {
    const { apiKey } = await createMerchant(stack.api);
    const cookie = cookieOf(await signIn({ apiKey: apiKey.key }));
    const issue = (headers: Record<string, string>) =>
      client.post('/v1/merchant/api-keys', { name: 'console' }, withCookie(cookie, headers));
    for (const headers of [
      { origin: 'https://elsewhere.example' },
      {},
      { 'sec-fetch-site': 'cross-site' },
    ] as Record<string, string>[]) {
      const refused = await issue(headers);
      expect(refused.status).toBe(403);
      expect(errorCode(refused)).toBe('FORBIDDEN');
      expect((refused.body as { error: { message: string } }).error.message).toContain(ownOrigin);
    }
    expect((await issue({ origin: ownOrigin })).status).toBe(201);
    expect((await issue({ 'sec-fetch-site': 'same-origin' })).status).toBe(201);
    // Another site's page cannot sign a browser in either.
    const foreign = await signIn({ apiKey: apiKey.key }, { origin: 'https://elsewhere.example' });
    expect(foreign.status).toBe(403);
  });

  it('lets an Authorization header win over the cookie, and signs out by clearing it', async () => {
    const { apiKey } = await createMerchant(stack.api);
    const cookie = cookieOf(await signIn({ apiKey: apiKey.key }));
    const asOperator = await client.get(
      '/admin/merchants',
      withCookie(cookie, { authorization: `Bearer ${stack.api.config.api.adminToken}` }),
    );
    expect(asOperator.status).toBe(200);
    const badBearer = await client.get('/v1/me', withCookie(cookie, { authorization: 'Bearer nonsense' }));
    expect(badBearer.status).toBe(401);

    const signedOut = await client.delete('/console/session', withCookie(cookie));
    expect(signedOut.status).toBe(204);
    expect(signedOut.headers.get('set-cookie')).toBe(
      'bff_console=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict',
    );
  });

  it("serves the console's own files only, under a strict Content-Security-Policy", async () => {
    const page = await client.get('/console/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const script = await client.get('/console/app.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-security-policy')).toContain("script-src 'self'");
    const bare = await client.get('/console');
    expect(bare.status).toBeGreaterThanOrEqual(300);
    expect(bare.headers.get('location')).toBe('/console/');
    for (const path of ['/console/missing.js', '/console/../package.json', '/console/%2e%2e/package.json'])
      expect((await client.get(path)).status, path).toBe(404);
  });

  it('lets the SDK work with the cookie alone (cookie: true), sending no Authorization', async () => {
    const { merchant, apiKey } = await createMerchant(stack.api);
    const cookie = cookieOf(await signIn({ apiKey: apiKey.key }));
    const sent: (string | null)[] = [];
    // Node's fetch keeps no cookies: this one adds the cookie and the Origin as the console's browser would.
    const bff = createBffClient({
      baseUrl: stack.api.url,
      cookie: true,
      fetch: (request, init) => {
        sent.push(request.headers.get('authorization'));
        request.headers.set('cookie', cookie);
        request.headers.set('origin', ownOrigin);
        return fetch(request, init);
      },
    });
    expect(await bff.me()).toMatchObject({ kind: 'merchant', merchantId: merchant.id });
    const issued = await bff.merchant.issueKey({ name: 'from the console' });
    await bff.merchant.revokeKey(issued.id);
    expect(sent.every((header) => header === null)).toBe(true);
    expect(() => createBffClient({ baseUrl: stack.api.url })).toThrow(/needs a token/);
  });
});
