import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import {
  createMerchant,
  createSandboxSubApplication,
  createUser,
  type Envelope,
  type ErrorBody,
  sessionToken,
  type Stack,
  uniqueName,
  useStack,
} from './kit/index.js';

describe('api: operator routes', () => {
  const stack = useStack();
  let api: Stack['api'];

  beforeAll(() => {
    api = stack.api;
  });

  it('creates a merchant on the root application and shows its key once, storing only a hash', async () => {
    const name = uniqueName('root-merchant');
    const response = await stack.operator.post('/admin/merchants', {
      name,
      frontendOrigins: ['https://app.example'],
    });
    expect(response.status).toBe(201);
    const { data } = response.body as Envelope<{
      merchant: { id: string; subApplicationId: string | null; apiKeys: Record<string, unknown>[] };
      apiKey: { id: string; key: string; prefix: string };
    }>;
    expect(data.merchant).toMatchObject({
      name,
      subApplicationId: null,
      frontendOrigins: ['https://app.example'],
    });
    expect(data.apiKey.key).toMatch(/^mk_/);
    expect(data.apiKey.key.startsWith(data.apiKey.prefix)).toBe(true);
    expect(JSON.stringify(data.merchant)).not.toContain(data.apiKey.key);

    const row = await api.app.get(PrismaService).apiKey.findUniqueOrThrow({ where: { id: data.apiKey.id } });
    expect(JSON.stringify(row)).not.toContain(data.apiKey.key);
    expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);

    const again = (await stack.operator.get(`/admin/merchants/${data.merchant.id}`)).body as Envelope<{
      apiKeys: Record<string, unknown>[];
    }>;
    expect(again.data.apiKeys).toHaveLength(1);
    expect(JSON.stringify(again)).not.toContain(data.apiKey.key);
    expect(again.data.apiKeys[0]).not.toHaveProperty('key');
  });

  it('maps a sub-application the upstream knows, refuses an unknown one, and a second merchant on it', async () => {
    const subApplicationId = await createSandboxSubApplication(stack.sandbox.url, api.config, 'Merchant Sub');
    const created = await createMerchant(api, { subApplicationId });
    const merchant = (await stack.operator.get(`/admin/merchants/${created.merchant.id}`)).body as Envelope<{
      subApplicationId: string;
      subApplicationName: string;
    }>;
    expect(merchant.data).toMatchObject({ subApplicationId, subApplicationName: 'Merchant Sub' });

    const unknown = await stack.operator.post('/admin/merchants', {
      name: uniqueName('x'),
      subApplicationId: '00000000-0000-4000-8000-00000000dead',
    });
    expect(unknown.status).toBe(400);
    const body = unknown.body as ErrorBody;
    expect(body.error.code).toBe('VALIDATION_FAILED');
    expect(body.error.details?.map((d) => d.field)).toEqual(['subApplicationId']);

    const duplicate = await stack.operator.post('/admin/merchants', {
      name: uniqueName('dup'),
      subApplicationId,
    });
    expect(duplicate.status).toBe(409);
    expect((duplicate.body as ErrorBody).error.code).toBe('CONFLICT');
  });

  it('pages merchants with an opaque cursor, meta.count and links.next', async () => {
    for (let i = 0; i < 3; i += 1) await createMerchant(api);
    const seen = new Set<string>();
    let path: string | undefined = '/admin/merchants?limit=2';
    let pages = 0;
    let last: Envelope<{ id: string }[]> | undefined;
    while (path && pages < 1000) {
      const response = await stack.operator.get(path);
      expect(response.status).toBe(200);
      last = response.body as Envelope<{ id: string }[]>;
      expect(last.meta.count).toBe(last.data.length);
      for (const m of last.data) {
        expect(seen.has(m.id)).toBe(false);
        seen.add(m.id);
      }
      path = last.links?.next;
      if (path) expect(path).toBe(`/admin/merchants?limit=2&cursor=${last.meta.nextCursor}`);
      pages += 1;
    }
    expect(last?.meta.nextCursor).toBeNull();
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(seen.size).toBeGreaterThanOrEqual(3);
  });

  it('answers a missing merchant and a missing key with 404', async () => {
    const { merchant } = await createMerchant(api);
    expect((await stack.operator.get('/admin/merchants/00000000-0000-4000-8000-000000000000')).status).toBe(
      404,
    );
    expect((await stack.operator.get('/admin/merchants/not-a-uuid')).status).toBe(404);
    expect(
      (await stack.operator.post('/admin/merchants/00000000-0000-4000-8000-000000000000/api-keys', {}))
        .status,
    ).toBe(404);
    expect(
      (
        await stack.operator.delete(
          `/admin/merchants/${merchant.id}/api-keys/00000000-0000-4000-8000-000000000000`,
        )
      ).status,
    ).toBe(404);
    // A key of another merchant is not this merchant's key.
    const other = await createMerchant(api);
    expect(
      (await stack.operator.delete(`/admin/merchants/${merchant.id}/api-keys/${other.apiKey.id}`)).status,
    ).toBe(404);
  });

  it('names the one origin that is not an origin, among good ones', async () => {
    const response = await stack.operator.post('/admin/merchants', {
      name: uniqueName('n'),
      frontendOrigins: ['https://ok.example', 'https://a.example/path'],
    });
    const answer = response.body as ErrorBody;
    expect(response.status).toBe(400);
    expect(answer.error.details).toEqual([
      {
        field: 'frontendOrigins',
        issue: 'must each be an origin like https://app.example; "https://a.example/path" is not',
      },
    ]);
  });

  it('refuses null for an optional field with 400 in the envelope, never a 500, creating nothing', async () => {
    const prisma = api.app.get(PrismaService);
    const { merchant } = await createMerchant(api);
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['POST', '/admin/merchants', { name: uniqueName('n'), subApplicationId: null }, 'subApplicationId'],
      ['POST', '/admin/merchants', { name: uniqueName('n'), frontendOrigins: null }, 'frontendOrigins'],
      ['POST', `/admin/merchants/${merchant.id}/api-keys`, { name: null }, 'name'],
    ];
    for (const [method, path, body, field] of cases) {
      const response = await stack.operator.call(method, path, { body });
      const answer = response.body as ErrorBody;
      expect([path, field, response.status], JSON.stringify(answer)).toEqual([path, field, 400]);
      expect(answer.error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
      expect(answer.error.details?.map((d) => d.field)).toEqual([field]);
      if (typeof body.name === 'string')
        expect(await prisma.merchant.count({ where: { name: body.name } })).toBe(0);
    }
    expect(await prisma.apiKey.count({ where: { merchantId: merchant.id } })).toBe(1);
  });

  it("lists the upstream's sub-applications, paged through", async () => {
    await createSandboxSubApplication(stack.sandbox.url, api.config);
    await createSandboxSubApplication(stack.sandbox.url, api.config);
    const ids: string[] = [];
    let path: string | undefined = '/admin/upstream/applications?limit=1';
    while (path) {
      const response = await stack.operator.get(path);
      expect(response.status).toBe(200);
      const page = response.body as Envelope<{ id: string }[]>;
      expect(page.data.length).toBeLessThanOrEqual(1);
      ids.push(...page.data.map((a) => a.id));
      path = page.links?.next;
    }
    const all = (await stack.operator.get('/admin/upstream/applications')).body as Envelope<{ id: string }[]>;
    expect(ids).toEqual(all.data.map((a) => a.id));
    expect(ids.length).toBeGreaterThanOrEqual(4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each([
    ['POST', '/admin/merchants', '{"name": ', 'malformed JSON', []],
    ['POST', '/admin/merchants', { name: 42 }, 'a wrong type', ['name']],
    ['POST', '/admin/merchants', { name: 'x', admin: true }, 'an unknown field', ['admin']],
    ['POST', '/admin/merchants', { name: '' }, 'an empty name', ['name']],
    [
      'POST',
      '/admin/merchants',
      { name: 'x', frontendOrigins: ['https://a.example/path'] },
      'an origin with a path',
      ['frontendOrigins'],
    ],
    [
      'POST',
      '/admin/merchants',
      { name: 'x', frontendOrigins: 'https://a.example' },
      'origins not a list',
      ['frontendOrigins'],
    ],
    [
      'POST',
      '/admin/merchants',
      { name: 'x', subApplicationId: 'a/../b' },
      'a malformed sub-application',
      ['subApplicationId'],
    ],
    ['POST', '/admin/merchants', '[1]', 'an array body', []],
    ['GET', '/admin/merchants?limit=0', undefined, 'limit out of range', ['limit']],
    ['GET', '/admin/merchants?limit=abc', undefined, 'limit not a number', ['limit']],
    ['GET', '/admin/merchants?cursor=!!', undefined, 'a malformed cursor', ['cursor']],
    ['GET', '/admin/merchants?cursor=Zm9v', undefined, 'a foreign cursor', ['cursor']],
    ['GET', '/admin/merchants?page=2', undefined, 'an unknown query parameter', ['page']],
    ['GET', '/admin/upstream/applications?limit=101', undefined, 'limit out of range', ['limit']],
    ['GET', '/admin/upstream/applications?cursor=Zm9v', undefined, 'a foreign cursor', ['cursor']],
    [
      'POST',
      '/admin/merchants/00000000-0000-4000-8000-000000000000/api-keys',
      { name: 7 },
      'a wrong type',
      ['name'],
    ],
    [
      'POST',
      '/admin/merchants/00000000-0000-4000-8000-000000000000/api-keys',
      { label: 'x' },
      'an unknown field',
      ['label'],
    ],
  ])('%s %s with %s answers 400 in the envelope', async (method, path, body, _what, fields) => {
    const response = await stack.operator.call(method, path, { body });
    expect(response.status).toBe(400);
    const envelope = response.body as ErrorBody;
    expect(envelope.error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    for (const field of fields) expect(envelope.error.details?.map((d) => d.field)).toContain(field);
  });

  it('refuses every operator route without the admin token: 401 anonymous, 403 to a merchant key or a user session', async () => {
    const { merchant, apiKey } = await createMerchant(api);
    const routes: [string, string][] = [
      ['POST', '/admin/merchants'],
      ['GET', '/admin/merchants'],
      ['GET', `/admin/merchants/${merchant.id}`],
      ['POST', `/admin/merchants/${merchant.id}/api-keys`],
      ['DELETE', `/admin/merchants/${merchant.id}/api-keys/${apiKey.id}`],
      ['GET', '/admin/upstream/applications'],
      ['POST', '/admin/institutions/refresh'],
    ];
    const user = await createUser(api.app.get(UserRepository), merchant.id);
    const session = sessionToken(api.config, { merchantId: merchant.id, userId: user.id });
    for (const [method, path] of routes) {
      expect(
        (await stack.anonymous.call(method, path, { body: method === 'POST' ? {} : undefined })).status,
        path,
      ).toBe(401);
      for (const [who, token] of [
        ['merchant key', apiKey.key],
        ['user session', session],
      ]) {
        const refused = await stack.anonymous
          .as(token)
          .call(method, path, { body: method === 'POST' ? {} : undefined });
        expect(refused.status, `${who}: ${method} ${path}`).toBe(403);
        expect((refused.body as ErrorBody).error).toMatchObject({ code: 'FORBIDDEN', status: 403 });
      }
    }
  });
});
