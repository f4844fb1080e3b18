import { beforeAll, describe, expect, it } from 'vitest';
import { tenantNamedByOperator } from '#libs/context';
import { PrismaService } from '#libs/database';
import { IdempotencyRepository } from '../apps/api/src/common/idempotency/idempotency.repository.js';
import { createMerchant, send, type Stack, uniqueName, useStack } from './kit/index.js';

describe('api: Idempotency-Key on creating POSTs (POST /admin/merchants/{id}/api-keys)', () => {
  const stack = useStack();
  let api: Stack['api'];

  const rotate = (merchantId: string, key: string | undefined, body: unknown) =>
    send(`${api.url}/admin/merchants/${merchantId}/api-keys`, 'POST', {
      token: api.config.api.adminToken,
      body,
      headers: key !== undefined ? { 'idempotency-key': key } : {},
    });
  const keyCount = async (merchantId: string) =>
    api.app.get(PrismaService).apiKey.count({ where: { merchantId } });

  beforeAll(() => {
    api = stack.api;
  });

  it('replays the first answer for the same key and body, and creates one key only', async () => {
    const { merchant } = await createMerchant(api);
    const key = uniqueName('idem');
    const first = await rotate(merchant.id, key, { name: 'a', extra: undefined });
    expect(first.status).toBe(201);
    const firstBody = (await first.json()) as { data: { key?: string } };
    expect(firstBody.data.key).toEqual(expect.any(String));
    // Same body with its keys in another order is the same request.
    const replay = await rotate(merchant.id, key, { name: 'a' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // Stored as jsonb: the same document, though its keys may come back in another order; the key itself,
    // a secret shown once, is stored nowhere, so the replay has the record without it.
    expect(await replay.json()).toEqual({ ...firstBody, data: { ...firstBody.data, key: undefined } });
    expect(await keyCount(merchant.id)).toBe(2);
    // Without a key every call creates.
    expect((await rotate(merchant.id, undefined, { name: 'a' })).status).toBe(201);
    expect(await keyCount(merchant.id)).toBe(3);
  });

  it('answers the same key with another body 409 IDEMPOTENCY_MISMATCH', async () => {
    const { merchant } = await createMerchant(api);
    const key = uniqueName('idem');
    expect((await rotate(merchant.id, key, { name: 'a' })).status).toBe(201);
    const mismatch = await rotate(merchant.id, key, { name: 'b' });
    expect(mismatch.status).toBe(409);
    expect(await mismatch.json()).toMatchObject({ error: { code: 'IDEMPOTENCY_MISMATCH', status: 409 } });
  });

  it('scopes keys by merchant: the same key for two merchants is two requests', async () => {
    const a = await createMerchant(api);
    const b = await createMerchant(api);
    const key = uniqueName('idem');
    const fromA = (await (await rotate(a.merchant.id, key, {})).json()) as { data: { id: string } };
    const fromB = (await (await rotate(b.merchant.id, key, {})).json()) as { data: { id: string } };
    expect(fromA.data.id).not.toBe(fromB.data.id);
  });

  it('answers a replay while the first request is in flight with 409 CONFLICT, and takes over an abandoned one', async () => {
    const { merchant } = await createMerchant(api);
    const repository = api.app.get(IdempotencyRepository);
    const body = {};
    const key = uniqueName('idem');
    // The claim another api process holds while its request runs: the same row it would write.
    const first = await rotate(merchant.id, uniqueName('probe'), body);
    expect(first.status).toBe(201);
    const probe = await api.app.get(PrismaService).idempotencyKey.findFirstOrThrow({
      where: { merchantId: merchant.id },
      orderBy: { createdAt: 'desc' },
    });
    const now = new Date();
    const claim = {
      merchantId: tenantNamedByOperator({ kind: 'operator' }, merchant.id),
      key,
      method: 'POST',
      path: probe.path,
      requestHash: probe.requestHash,
      expiresAt: new Date(now.getTime() + 86_400_000),
    };
    expect(await repository.claim(claim, now)).toBe(true);
    const inFlight = await rotate(merchant.id, key, body);
    expect(inFlight.status).toBe(409);
    expect(await inFlight.json()).toMatchObject({ error: { code: 'CONFLICT' } });

    const abandoned = uniqueName('idem');
    expect(await repository.claim({ ...claim, key: abandoned }, new Date(now.getTime() - 5 * 60_000))).toBe(
      true,
    );
    expect((await rotate(merchant.id, abandoned, body)).status).toBe(201);
  });

  it('lets concurrent requests with one key create one API key', async () => {
    const { merchant } = await createMerchant(api);
    const key = uniqueName('idem');
    const responses = await Promise.all([1, 2, 3, 4].map(() => rotate(merchant.id, key, { name: 'c' })));
    const created = new Set<string>();
    for (const response of responses) {
      if (response.status === 201) created.add(((await response.json()) as { data: { id: string } }).data.id);
      else expect(await response.json()).toMatchObject({ error: { code: 'CONFLICT', status: 409 } });
    }
    expect(created.size).toBe(1);
    expect(await keyCount(merchant.id)).toBe(2);
  });

  it('treats an expired key as new, and releases the key when the request fails', async () => {
    const { merchant } = await createMerchant(api);
    const repository = api.app.get(IdempotencyRepository);
    const key = uniqueName('idem');
    const past = new Date(Date.now() - 25 * 3_600_000);
    expect(
      await repository.claim(
        {
          merchantId: tenantNamedByOperator({ kind: 'operator' }, merchant.id),
          key,
          method: 'POST',
          path: '/x',
          requestHash: 'f'.repeat(64),
          expiresAt: past,
        },
        past,
      ),
    ).toBe(true);
    await repository.complete(
      tenantNamedByOperator({ kind: 'operator' }, merchant.id),
      key,
      past,
      201,
      { old: true },
      past,
    );
    const fresh = await rotate(merchant.id, key, { name: 'new' });
    expect(fresh.status).toBe(201);
    expect(await fresh.json()).toMatchObject({ data: { name: 'new' } });

    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await rotate(missing, uniqueName('idem'), {})).status).toBe(404);
  });

  it('writes no record for a request whose input is invalid, and leaves a key in use as it was', async () => {
    const prisma = api.app.get(PrismaService);
    const { merchant } = await createMerchant(api);
    const rows = (key: string) => prisma.idempotencyKey.count({ where: { key } });
    // A merchant id that is not a uuid names no merchant: 404, not a failed insert (it was a 500).
    for (const id of ['not-a-uuid', '0190c0de', "' OR 1=1 --"]) {
      const key = uniqueName('idem');
      const response = await rotate(encodeURIComponent(id), key, {});
      expect([id, response.status]).toEqual([id, 404]);
      expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND', status: 404 } });
      expect(await rows(key)).toBe(0);
    }
    // A key in use answers as it always does (another body: 409), whatever the body; a fresh key is released.
    const key = uniqueName('idem');
    expect((await rotate(merchant.id, key, { name: 'valid' })).status).toBe(201);
    const inFlight = uniqueName('idem');
    const now = new Date();
    await api.app.get(IdempotencyRepository).claim(
      {
        merchantId: tenantNamedByOperator({ kind: 'operator' }, merchant.id),
        key: inFlight,
        method: 'POST',
        path: '/admin/merchants/:id/api-keys',
        requestHash: '0'.repeat(64),
        expiresAt: new Date(now.getTime() + 60_000),
      },
      now,
    );
    for (const body of [{ name: null }, { name: '' }, { name: 7 }, { unexpected: true }, []]) {
      for (const [used, code] of [
        [key, 'IDEMPOTENCY_MISMATCH'],
        [inFlight, 'IDEMPOTENCY_MISMATCH'],
      ]) {
        const response = await rotate(merchant.id, used, body);
        expect([JSON.stringify(body), response.status]).toEqual([JSON.stringify(body), 409]);
        expect(await response.json()).toMatchObject({ error: { code } });
        expect(await rows(used)).toBe(1);
      }
      const fresh = uniqueName('idem');
      expect((await rotate(merchant.id, fresh, body)).status).toBe(400);
      expect(await rows(fresh)).toBe(0);
    }
    expect(await prisma.apiKey.count({ where: { merchantId: merchant.id } })).toBe(2);
  });

  it('keeps no secret shown once in a stored answer: neither an API key nor an endpoint secret', async () => {
    const prisma = api.app.get(PrismaService);
    const { merchant, apiKey } = await createMerchant(api);
    const stored = (key: string) =>
      prisma.idempotencyKey.findUniqueOrThrow({
        where: { merchantId_key: { merchantId: merchant.id, key } },
      });

    const rotation = uniqueName('idem');
    const rotated = (await (await rotate(merchant.id, rotation, { name: 'kept' })).json()) as {
      data: { id: string; key: string; prefix: string };
    };
    expect(rotated.data.key).toMatch(/^mk_/);
    const row = await stored(rotation);
    expect(row.responseBody).toMatchObject({ data: { id: rotated.data.id, prefix: rotated.data.prefix } });
    expect(JSON.stringify(row)).not.toContain(rotated.data.key.slice(rotated.data.prefix.length));

    const subscription = uniqueName('idem');
    const endpoint = await send(`${api.url}/v1/event-endpoints`, 'POST', {
      token: apiKey.key,
      body: { url: 'https://hooks.merchant.example/bff' },
      headers: { 'idempotency-key': subscription },
    });
    expect(endpoint.status).toBe(201);
    const { data } = (await endpoint.json()) as { data: { endpoint: { id: string }; secret: string } };
    expect(data.secret).toMatch(/^whsec_/);
    const endpointRow = await stored(subscription);
    expect(endpointRow.responseBody).toMatchObject({ data: { endpoint: { id: data.endpoint.id } } });
    expect(JSON.stringify(endpointRow)).not.toContain(data.secret.slice('whsec_'.length));
  });

  it.each([
    ['an empty key', ''],
    ['a key with spaces', 'has spaces'],
    ['a key over 255 characters', 'k'.repeat(256)],
  ])('refuses %s with 400', async (_what, key) => {
    const { merchant } = await createMerchant(api);
    const response = await rotate(merchant.id, key, {});
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
  });
});
