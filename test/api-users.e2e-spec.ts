import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import {
  connect,
  createConsentRow,
  createMerchant,
  createSandboxSubApplication,
  createUser,
  dataOf,
  type Envelope,
  type ErrorBody,
  onboard,
  SandboxHttp,
  sessionToken,
  type Stack,
  uniqueName,
  useStack,
} from './kit/index.js';

type UserBody = { id: string; reference: string; vopOptOut: boolean; createdAt: string; updatedAt: string };

describe('api: users and sessions', () => {
  const stack = useStack();
  let api: Stack['api'];
  let upstream: SandboxHttp;
  let prisma: PrismaService;

  const createOk = async (key: string, body: Record<string, unknown>) => {
    const response = await stack.anonymous.as(key).post('/v1/users', body);
    expect(response.status).toBe(201);
    return (response.body as Envelope<UserBody>).data;
  };

  beforeAll(() => {
    api = stack.api;
    upstream = new SandboxHttp(stack.sandbox.url, api.config);
    prisma = api.app.get(PrismaService);
  });

  it('creates a user (201) upstream, then returns the same user (200) for the same reference', async () => {
    const { merchant, apiKey } = await createMerchant(api);
    const reference = uniqueName('ref');
    const first = await stack.anonymous.as(apiKey.key).post('/v1/users', { reference, vopOptOut: true });
    expect(first.status).toBe(201);
    const created = first.body as Envelope<UserBody>;
    expect(created.data).toMatchObject({ reference, vopOptOut: true });
    expect(Object.keys(created.data).sort()).toEqual([
      'createdAt',
      'id',
      'reference',
      'updatedAt',
      'vopOptOut',
    ]);

    const second = await stack.anonymous.as(apiKey.key).post('/v1/users', { reference });
    expect(second.status).toBe(200);
    expect((second.body as Envelope<UserBody>).data).toEqual(created.data);

    // Root-application merchants are namespaced upstream by merchant id.
    const row = await prisma.user.findUniqueOrThrow({ where: { id: created.data.id } });
    expect(row.applicationUserId).toBe(`${merchant.id}:${reference}`);
    const remote = await upstream.call<{
      uuid: string;
      applicationUserId: string;
      referenceId: string;
      vopOptOut: boolean;
    }>('GET', `/users/${row.upstreamUserUuid}`);
    expect(remote.status).toBe(200);
    expect(remote.body).toMatchObject({
      applicationUserId: `${merchant.id}:${reference}`,
      referenceId: reference,
      vopOptOut: true,
    });
  });

  it('turns concurrent creates of one reference into one user, locally and upstream', async () => {
    const { merchant, apiKey } = await createMerchant(api);
    const reference = uniqueName('race');
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => stack.anonymous.as(apiKey.key).post('/v1/users', { reference })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(7);
    const ids = new Set(responses.map((r) => (r.body as Envelope<UserBody>).data.id));
    expect(ids.size).toBe(1);
    expect(await prisma.user.count({ where: { merchantId: merchant.id, reference } })).toBe(1);
    const remote = await upstream.call<unknown[]>(
      'GET',
      `/users?filter[applicationUserId]=${merchant.id}:${reference}`,
    );
    expect(remote.body).toHaveLength(1);
  });

  it('finds by reference (404 if none) and lists with a cursor', async () => {
    const { apiKey } = await createMerchant(api);
    const users = [];
    for (let i = 0; i < 3; i++) users.push(await createOk(apiKey.key, { reference: uniqueName(`list${i}`) }));

    const found = await stack.anonymous
      .as(apiKey.key)
      .get(`/v1/users?reference=${encodeURIComponent(users[1].reference)}`);
    expect(found.status).toBe(200);
    expect((found.body as Envelope<UserBody>).data).toEqual(users[1]);
    const none = await stack.anonymous.as(apiKey.key).get('/v1/users?reference=nobody');
    expect(none.status).toBe(404);
    expect((none.body as ErrorBody).error.code).toBe('NOT_FOUND');

    const seen: string[] = [];
    let cursor: string | null | undefined;
    do {
      const page = (
        await stack.anonymous.as(apiKey.key).get(`/v1/users?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      ).body as Envelope<UserBody[]>;
      expect(page.meta.count).toBe(page.data.length);
      seen.push(...page.data.map((u) => u.id));
      cursor = page.meta.nextCursor;
    } while (cursor);
    expect(seen).toEqual(users.map((u) => u.id));

    const one = await stack.anonymous.as(apiKey.key).get(`/v1/users/${users[0].id}`);
    expect((one.body as Envelope<UserBody>).data).toEqual(users[0]);
  });

  it('patches vopOptOut and reference upstream as a JSON-patch, and refuses a taken reference', async () => {
    const { merchant, apiKey } = await createMerchant(api);
    const user = await createOk(apiKey.key, { reference: uniqueName('patch') });
    const other = await createOk(apiKey.key, { reference: uniqueName('patch') });
    const reference = uniqueName('renamed');
    const response = await stack.anonymous
      .as(apiKey.key)
      .patch(`/v1/users/${user.id}`, { vopOptOut: true, reference });
    expect(response.status).toBe(200);
    expect((response.body as Envelope<UserBody>).data).toMatchObject({
      id: user.id,
      reference,
      vopOptOut: true,
    });

    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.applicationUserId).toBe(`${merchant.id}:${reference}`);
    const remote = await upstream.call('GET', `/users/${row.upstreamUserUuid}`);
    expect(remote.body).toMatchObject({
      applicationUserId: `${merchant.id}:${reference}`,
      referenceId: reference,
      vopOptOut: true,
    });

    const taken = await stack.anonymous
      .as(apiKey.key)
      .patch(`/v1/users/${user.id}`, { reference: other.reference });
    expect(taken.status).toBe(409);
    expect((taken.body as ErrorBody).error.code).toBe('CONFLICT');
  });

  it("keeps the bank's accounts of a renamed user: the live read and a new consent see the same ones", async () => {
    const tenant = await onboard(stack);
    await connect(stack, tenant);
    const accounts = dataOf<{ id: string; upstreamAccountId: string }[]>(
      await tenant.client.get(`/v1/users/${tenant.userId}/accounts`),
    );
    const live = `/v1/accounts/${accounts[0].id}/transactions/live`;
    const before = dataOf<{ id: string }[]>(await tenant.client.get(live));
    dataOf(await tenant.client.patch(`/v1/users/${tenant.userId}`, { reference: uniqueName('renamed') }));
    // The bank names the same accounts and transactions, under the consent given before and a new one.
    expect(dataOf<{ id: string }[]>(await tenant.client.get(live)).map((t) => t.id)).toEqual(
      before.map((t) => t.id),
    );
    await connect(stack, tenant);
    const after = dataOf<{ upstreamAccountId: string }[]>(
      await tenant.client.get(`/v1/users/${tenant.userId}/accounts`),
    );
    expect(new Set(after.map((a) => a.upstreamAccountId))).toEqual(
      new Set(accounts.map((a) => a.upstreamAccountId)),
    );
  });

  it('erases a user upstream and every local row of theirs; a token of theirs stops working', async () => {
    const { apiKey } = await createMerchant(api);
    const user = await createOk(apiKey.key, { reference: uniqueName('erase') });
    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    const consent = await createConsentRow(prisma, row);
    const token = (
      (await stack.anonymous.as(apiKey.key).post(`/v1/users/${user.id}/sessions`)).body as Envelope<{
        token: string;
      }>
    ).data.token;

    const response = await stack.anonymous.as(apiKey.key).delete(`/v1/users/${user.id}`);
    expect(response.status).toBe(204);
    expect(await prisma.user.findUnique({ where: { id: user.id } })).toBeNull();
    expect(await prisma.consent.findUnique({ where: { id: consent.id } })).toBeNull();
    expect((await upstream.call('GET', `/users/${row.upstreamUserUuid}`)).status).toBe(404);
    expect((await stack.anonymous.as(token).get(`/v1/users/${user.id}`)).status).toBe(401);
    expect((await stack.anonymous.as(apiKey.key).delete(`/v1/users/${user.id}`)).status).toBe(404);
  });

  it('treats an upstream user that is already gone as erased', async () => {
    const { apiKey } = await createMerchant(api);
    const user = await createOk(apiKey.key, { reference: uniqueName('gone') });
    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect((await upstream.call('DELETE', `/users/${row.upstreamUserUuid}`)).status).toBe(200);
    expect((await stack.anonymous.as(apiKey.key).delete(`/v1/users/${user.id}`)).status).toBe(204);
    expect(await prisma.user.findUnique({ where: { id: user.id } })).toBeNull();
  });

  it('mints a session that reads its own user only; expired tokens get 401', async () => {
    const { merchant, apiKey } = await createMerchant(api);
    const user = await createOk(apiKey.key, { reference: uniqueName('s') });
    const other = await createOk(apiKey.key, { reference: uniqueName('s') });
    const minted = await stack.anonymous.as(apiKey.key).post(`/v1/users/${user.id}/sessions`);
    expect(minted.status).toBe(201);
    const { data } = minted.body as Envelope<{ token: string; expiresAt: string }>;
    expect(data.token).toMatch(/^us_/);
    expect(Date.parse(data.expiresAt)).toBeGreaterThan(Date.now());

    expect((await stack.anonymous.as(data.token).get(`/v1/users/${user.id}`)).status).toBe(200);
    const foreign = await stack.anonymous.as(data.token).get(`/v1/users/${other.id}`);
    expect(foreign.status).toBe(404);
    expect((foreign.body as ErrorBody).error.code).toBe('NOT_FOUND');
    // Merchant-only routes refuse the session's kind outright.
    for (const [method, path] of [
      ['POST', '/v1/users'],
      ['GET', '/v1/users'],
      ['PATCH', `/v1/users/${user.id}`],
      ['DELETE', `/v1/users/${user.id}`],
      ['POST', `/v1/users/${user.id}/sessions`],
    ] as const) {
      expect(
        (
          await stack.anonymous
            .as(data.token)
            .call(method, path, { body: method === 'GET' || method === 'DELETE' ? undefined : {} })
        ).status,
        `${method} ${path}`,
      ).toBe(403);
    }
    const expired = sessionToken(api.config, { merchantId: merchant.id, userId: user.id }, -60);
    expect((await stack.anonymous.as(expired).get(`/v1/users/${user.id}`)).status).toBe(401);
  });

  it("answers 404 for another merchant's user on every route", async () => {
    const owner = await createMerchant(api);
    const stranger = await createMerchant(api);
    const user = await createOk(owner.apiKey.key, { reference: uniqueName('mine') });
    for (const [method, path, body] of [
      ['GET', `/v1/users/${user.id}`, undefined],
      ['GET', `/v1/users?reference=${encodeURIComponent(user.reference)}`, undefined],
      ['PATCH', `/v1/users/${user.id}`, { vopOptOut: true }],
      ['DELETE', `/v1/users/${user.id}`, undefined],
      ['POST', `/v1/users/${user.id}/sessions`, undefined],
      ['GET', '/v1/users/not-a-uuid', undefined],
    ] as const) {
      const response = await stack.anonymous.as(stranger.apiKey.key).call(method, path, { body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect((response.body as ErrorBody).error.code).toBe('NOT_FOUND');
    }
    // The same reference is free for the other merchant: references are per merchant.
    expect(
      (await stack.anonymous.as(stranger.apiKey.key).post('/v1/users', { reference: user.reference })).status,
    ).toBe(201);
    // A session of another merchant's user, naming this user, sees nothing either.
    const theirs = await createUser(api.app.get(UserRepository), stranger.merchant.id);
    const token = sessionToken(api.config, { merchantId: stranger.merchant.id, userId: theirs.id });
    expect((await stack.anonymous.as(token).get(`/v1/users/${user.id}`)).status).toBe(404);
    expect((await stack.anonymous.as(owner.apiKey.key).get(`/v1/users/${user.id}`)).status).toBe(200);
  });

  it('refuses malformed input with 400 VALIDATION_FAILED, never 500', async () => {
    const { apiKey } = await createMerchant(api);
    const user = await createOk(apiKey.key, { reference: uniqueName('v') });
    const cases: [string, string, unknown][] = [
      ['POST', '/v1/users', '{"reference":'],
      ['POST', '/v1/users', {}],
      ['POST', '/v1/users', { reference: 42 }],
      ['POST', '/v1/users', { reference: '' }],
      ['POST', '/v1/users', { reference: 'x'.repeat(201) }],
      ['POST', '/v1/users', { reference: 'has space' }],
      ['POST', '/v1/users', { reference: 'ok', vopOptOut: 'yes' }],
      ['POST', '/v1/users', { reference: 'ok', extra: 1 }],
      ['PATCH', `/v1/users/${user.id}`, '{bad json'],
      ['PATCH', `/v1/users/${user.id}`, { vopOptOut: 1 }],
      ['PATCH', `/v1/users/${user.id}`, { reference: null }],
      ['PATCH', `/v1/users/${user.id}`, { unknown: true }],
      ['GET', '/v1/users?limit=0', undefined],
      ['GET', '/v1/users?limit=101', undefined],
      ['GET', '/v1/users?limit=abc', undefined],
      ['GET', '/v1/users?cursor=!!', undefined],
      ['GET', `/v1/users?cursor=${Buffer.from('not-a-uuid').toString('base64url')}`, undefined],
      ['GET', '/v1/users?other=1', undefined],
    ];
    for (const [method, path, body] of cases) {
      const response = await stack.anonymous.as(apiKey.key).call(method, path, { body });
      expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      expect((response.body as ErrorBody).error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('replays an idempotent create', async () => {
    const { apiKey } = await createMerchant(api);
    const body = { reference: uniqueName('idem') };
    const headers = { 'idempotency-key': uniqueName('key') };
    const first = await stack.anonymous.as(apiKey.key).post('/v1/users', body, { headers });
    const again = await stack.anonymous.as(apiKey.key).post('/v1/users', body, { headers });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(
      (await stack.anonymous.as(apiKey.key).post('/v1/users', { reference: 'other' }, { headers })).status,
    ).toBe(409);
  });

  it('creates the user in the merchant sub-application, invisible to the root without the header', async () => {
    const subApplicationId = await createSandboxSubApplication(stack.sandbox.url, api.config);
    const { apiKey } = await createMerchant(api, { subApplicationId });
    const reference = uniqueName('sub');
    const user = await createOk(apiKey.key, { reference });
    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    // A sub-application is the merchant's own namespace: the bare reference.
    expect(row.applicationUserId).toBe(reference);
    expect((await upstream.call('GET', `/users/${row.upstreamUserUuid}`)).status).toBe(404);
    const viaHeader = await upstream.call('GET', `/users/${row.upstreamUserUuid}`, {
      subApplication: subApplicationId,
    });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body).toMatchObject({ applicationUserId: reference });

    expect(
      (await stack.anonymous.as(apiKey.key).patch(`/v1/users/${user.id}`, { vopOptOut: true })).status,
    ).toBe(200);
    const patched = await upstream.call('GET', `/users/${row.upstreamUserUuid}`, {
      subApplication: subApplicationId,
    });
    expect(patched.body).toMatchObject({ vopOptOut: true });
    expect((await stack.anonymous.as(apiKey.key).delete(`/v1/users/${user.id}`)).status).toBe(204);
    expect(
      (await upstream.call('GET', `/users/${row.upstreamUserUuid}`, { subApplication: subApplicationId }))
        .status,
    ).toBe(404);
  });
});
