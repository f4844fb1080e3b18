import { describe, expect, it } from 'vitest';
import { ALL_QUEUES } from '#libs/queue';
import { createMerchant, send, uniqueQueuePrefix, useStack } from './kit/index.js';

describe('api: Bull Board at /admin/queues, behind the operator token', () => {
  const stack = useStack({ overrides: { QUEUE_PREFIX: uniqueQueuePrefix('board') } });

  const basic = (password: string, user = 'operator') =>
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  it('asks a browser for the token and refuses anything else in the error envelope', async () => {
    const token = stack.api.config.api.adminToken;
    const attempts: Record<string, string>[] = [
      {},
      { authorization: basic('wrong') },
      { authorization: 'Bearer wrong' },
      // The right token under any other user name, or none, is refused too.
      { authorization: basic(token, '') },
      { authorization: basic(token, 'admin') },
      { authorization: `Basic ${Buffer.from(token).toString('base64')}` },
    ];
    for (const headers of attempts) {
      const response = await send(`${stack.api.url}/admin/queues`, 'GET', { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
    }
    const api = await send(`${stack.api.url}/admin/queues/api/queues`, 'GET', {});
    expect(api.status).toBe(401);
  });

  it('shows every queue to the operator, by Basic password or bearer token', async () => {
    const token = stack.api.config.api.adminToken;
    const page = await send(`${stack.api.url}/admin/queues`, 'GET', {
      headers: { authorization: basic(token) },
    });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/<html/i);
    // Everything it loads is the api's own: an operator's network may reach nothing else (no web fonts).
    const loaded = [...html.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]);
    expect(loaded.length).toBeGreaterThan(2);
    expect(loaded.filter((url) => /^(?:[a-z]+:)?\/\//i.test(url))).toEqual([]);
    const queues = await send(`${stack.api.url}/admin/queues/api/queues`, 'GET', { token });
    expect(queues.status).toBe(200);
    const body = (await queues.json()) as { queues: { name: string }[] };
    expect(body.queues.map((q) => q.name).sort()).toEqual([...ALL_QUEUES].sort());
  });

  it('opens for the operator’s console session, changes only from the api origin, never for a merchant’s', async () => {
    const signIn = async (body: object) => {
      const response = await stack.anonymous.post('/console/session', body);
      expect(response.status).toBe(200);
      return response.headers.get('set-cookie')!.split(';')[0];
    };
    const operator = await signIn({ operatorToken: stack.api.config.api.adminToken });
    const board = `${stack.api.url}/admin/queues`;
    const page = await send(board, 'GET', { headers: { cookie: operator } });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);

    const [queue] = ALL_QUEUES;
    const retry = `${board}/api/queues/${queue}/retry/failed`;
    const ownOrigin = new URL(stack.api.config.api.publicUrl).origin;
    const crossSite = await send(retry, 'PUT', {
      headers: { cookie: operator, origin: 'https://elsewhere.example' },
    });
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as { error: { message: string } }).error.message).toContain(ownOrigin);
    // No Origin and no Sec-Fetch-Site (no browser says where it comes from): refused too.
    expect((await send(retry, 'PUT', { headers: { cookie: operator } })).status).toBe(403);
    const fromConsole = await send(retry, 'PUT', { headers: { cookie: operator, origin: ownOrigin } });
    expect(fromConsole.status).toBe(200);

    const { apiKey } = await createMerchant(stack.api);
    const merchant = await signIn({ apiKey: apiKey.key });
    for (const cookie of [merchant, 'bff_console=forged.token', `${operator}x`]) {
      expect((await send(board, 'GET', { headers: { cookie } })).status).toBe(401);
    }
  });
});
