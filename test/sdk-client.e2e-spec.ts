import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { BffError, createBffClient, isBffError } from '../libs/merchant-sdk/src/index.js';
import { createMerchant, freePort, uniqueName, useStack } from './kit/index.js';
import { envelope, FlakyProxy, type ProxyPlan } from './kit/sdk-kit.js';

/** What a promise rejected with, failing the test when it resolved. */
async function rejection(pending: Promise<unknown>): Promise<BffError> {
  const outcome = await pending.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(BffError);
  return outcome.error as BffError;
}

/**
 * The merchant SDK's client against a real api (and the sandbox behind it): the envelope's `data`, every
 * failure as one BffError, lists paged to their end, and retries that honour Retry-After and repeat a
 * creating POST with the same Idempotency-Key (through a proxy that answers 429 and 503 on cue).
 */
describe('merchant SDK: the client against the api', () => {
  const stack = useStack({ overrides: { LOG_LEVEL: 'silent' } });
  let key: string;

  beforeAll(async () => {
    const merchant = await createMerchant(stack.api);
    key = merchant.apiKey.key;
  });

  const client = (
    baseUrl = stack.api.url,
    extra: { maxRetries?: number; maxRetryAfterSeconds?: number } = {},
  ) => createBffClient({ baseUrl, token: key, ...extra });

  it('answers the envelope’s data, and every refusal as a BffError with its code, status and tracingId', async () => {
    const bff = client();
    const reference = uniqueName('customer');
    const user = await bff.users.create({ reference });
    expect(user).toMatchObject({ reference, vopOptOut: false });
    expect(await bff.users.create({ reference })).toEqual(user);
    expect(await bff.users.get(user.id)).toEqual(user);
    expect(await bff.me()).toMatchObject({ kind: 'merchant' });

    const missing = await rejection(bff.users.get(randomUUID()));
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND', name: 'BffError' });
    expect(missing.tracingId).toMatch(/^[\w.:-]+$/);
    expect(isBffError(missing, 'NOT_FOUND')).toBe(true);

    const invalid = await rejection(bff.users.create({ reference: '' }));
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(invalid.details?.map((detail) => detail.field)).toContain('reference');

    const stranger = await rejection(createBffClient({ baseUrl: stack.api.url, token: 'mk_nobody' }).me());
    expect(stranger).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });

    // A user's session may not list the merchant's users.
    const session = await bff.sessions.create(user.id);
    const browser = createBffClient({ baseUrl: stack.api.url, token: () => session.token });
    expect(await browser.users.get(user.id)).toEqual(user);
    expect(await rejection(browser.users.list().page())).toMatchObject({ status: 403, code: 'FORBIDDEN' });

    // No answer at all.
    const closed = await rejection(client(`http://127.0.0.1:${await freePort()}`).me());
    expect(closed).toMatchObject({ status: 0, code: 'NETWORK_ERROR' });

    // The raw client: same token and behaviour, openapi-fetch's answers; the tracing id is the request id.
    const raw = await bff.raw.GET('/v1/users/{userId}', {
      params: { path: { userId: randomUUID() } },
      headers: { 'x-request-id': 'sdk-test-404' },
    });
    expect(raw.response.status).toBe(404);
    expect(BffError.fromResponse(raw.response, raw.error)).toMatchObject({
      code: 'NOT_FOUND',
      tracingId: 'sdk-test-404',
    });
  });

  it('pages a list to its end as one loop, page by page, or one page from a cursor', async () => {
    const merchant = await createMerchant(stack.api);
    const bff = createBffClient({ baseUrl: stack.api.url, token: merchant.apiKey.key });
    const created = [];
    for (let i = 0; i < 5; i += 1) created.push(await bff.users.create({ reference: uniqueName(`u${i}`) }));

    const seen = [];
    for await (const user of bff.users.list({ limit: 2 })) seen.push(user.id);
    expect(seen).toEqual(created.map((user) => user.id));

    const sizes = [];
    for await (const page of bff.users.list({ limit: 2 }).pages()) sizes.push(page.items.length);
    expect(sizes).toEqual([2, 2, 1]);

    const first = await bff.users.list({ limit: 2 }).page();
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await bff.users.list({ limit: 2 }).page(first.nextCursor!);
    expect(second.items.map((user) => user.id)).toEqual(seen.slice(2, 4));
    expect(await bff.users.list({ limit: 2 }).toArray()).toHaveLength(5);

    expect((await bff.users.findByReference(created[3].reference)).id).toBe(created[3].id);
    const institutions = await bff.institutions.list({ limit: 1 }).toArray();
    expect(institutions.map((institution) => institution.id)).toContain('sandbox-redirect');
  });

  /** The SDK's client through a proxy following `plan`, and the proxy. */
  async function throughProxy(
    plan: (request: { method: string; path: string }, index: number) => ProxyPlan | undefined,
    extra: { maxRetries?: number; maxRetryAfterSeconds?: number } = {},
  ) {
    const proxy = await new FlakyProxy(stack.api.url, plan).start();
    return { proxy, bff: client(proxy.url, extra) };
  }

  it('repeats a creating POST whose answer was lost with the same Idempotency-Key: the api replays it', async () => {
    const lost: ProxyPlan = {
      forwardThenAnswer: {
        status: 503,
        headers: { 'retry-after': '1' },
        body: envelope(503, 'SERVICE_UNAVAILABLE', 'proxy-503'),
      },
    };
    const { proxy, bff } = await throughProxy((request, index) => (index === 0 ? lost : undefined));
    try {
      const reference = uniqueName('customer');
      const user = await bff.users.create({ reference });
      const [first, second] = proxy.records;
      expect(proxy.records).toHaveLength(2);
      expect([first.upstreamStatus, second.upstreamStatus]).toEqual([201, 201]);
      expect(first.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
      expect(second.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
      expect(second.upstreamHeaders?.get('idempotent-replayed')).toBe('true');
      expect((await client().users.findByReference(reference)).id).toBe(user.id);
    } finally {
      await proxy.stop();
    }
  });

  it('waits out Retry-After before retrying a 429, and gives up with the last refusal', async () => {
    const limited: ProxyPlan = {
      answer: {
        status: 429,
        headers: { 'retry-after': '1' },
        body: envelope(429, 'RATE_LIMITED', 'proxy-429'),
      },
    };
    const { proxy, bff } = await throughProxy((request, index) => (index < 2 ? limited : undefined));
    try {
      const started = Date.now();
      expect(await bff.me()).toMatchObject({ kind: 'merchant' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      expect(proxy.records.map((r) => r.upstreamStatus)).toEqual([undefined, undefined, 200]);
    } finally {
      await proxy.stop();
    }

    const always = await throughProxy(() => limited, { maxRetries: 1 });
    try {
      const refused = await rejection(always.bff.users.create({ reference: uniqueName('customer') }));
      expect(refused).toMatchObject({
        status: 429,
        code: 'RATE_LIMITED',
        retryAfter: 1,
        tracingId: 'proxy-429',
      });
      expect(always.proxy.records).toHaveLength(2);
      const [key, again] = always.proxy.records.map((r) => r.headers['idempotency-key']);
      expect(key).toMatch(/^[0-9a-f-]{36}$/);
      expect(again).toBe(key);
    } finally {
      await always.proxy.stop();
    }
  });

  it('does not repeat a 503 of a POST without an Idempotency-Key, nor wait out a Retry-After past its limit', async () => {
    const user = await client().users.create({ reference: uniqueName('customer') });
    const unavailable: ProxyPlan = {
      answer: {
        status: 503,
        headers: { 'retry-after': '1' },
        body: envelope(503, 'SERVICE_UNAVAILABLE', 'p'),
      },
    };
    const once = await throughProxy(() => unavailable);
    try {
      const refused = await rejection(once.bff.sessions.create(user.id));
      expect(refused).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', retryAfter: 1 });
      expect(once.proxy.records).toHaveLength(1);
    } finally {
      await once.proxy.stop();
    }

    const later: ProxyPlan = {
      answer: { status: 429, headers: { 'retry-after': '120' }, body: envelope(429, 'RATE_LIMITED', 'p') },
    };
    const patient = await throughProxy(() => later, { maxRetryAfterSeconds: 60 });
    try {
      expect(await rejection(patient.bff.me())).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 120 });
      expect(patient.proxy.records).toHaveLength(1);
    } finally {
      await patient.proxy.stop();
    }
  });

  it('sends the caller’s own Idempotency-Key: the same call replays, another body is refused', async () => {
    const { proxy, bff } = await throughProxy(() => undefined);
    try {
      const idempotencyKey = `order-${randomUUID()}`;
      const input = { reference: uniqueName('customer') };
      const user = await bff.users.create(input, { idempotencyKey });
      expect(await bff.users.create(input, { idempotencyKey })).toEqual(user);
      expect(proxy.records.map((r) => r.headers['idempotency-key'])).toEqual([
        idempotencyKey,
        idempotencyKey,
      ]);
      expect(proxy.records[1].upstreamHeaders?.get('idempotent-replayed')).toBe('true');
      const mismatch = await rejection(
        bff.users.create({ reference: uniqueName('other') }, { idempotencyKey }),
      );
      expect(mismatch).toMatchObject({ status: 409, code: 'IDEMPOTENCY_MISMATCH' });
    } finally {
      await proxy.stop();
    }
  });
});
