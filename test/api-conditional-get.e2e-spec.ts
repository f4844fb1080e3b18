import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  type ApiResponse,
  assertProperty,
  connect,
  dataOf,
  onboard,
  propertyTimeout,
  type Stack,
  type Tenant,
  uniqueName,
  useStack,
} from './kit/index.js';

/** An answer's text without its `meta.tracingId`: what its ETag covers. */
const withoutTracingId = (response: ApiResponse) =>
  JSON.stringify({ ...response.body, meta: { ...response.body.meta, tracingId: undefined } });

/** An answer's headers but the clock's and the rate limit's count, which each request moves on. */
/** What an answer's headers say apart from the moment it was sent (its date, the rate window's count and reset). */
const MOMENTARY = new Set(['date', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
const headersOf = (response: ApiResponse) =>
  Object.fromEntries([...response.headers].filter(([name]) => !MOMENTARY.has(name)));

/**
 * The hot reads answer conditional GETs: a strong ETag over everything but `meta.tracingId`, `Cache-Control:
 * private, no-cache`, `Vary` on the credentials, and 304 to a matching `If-None-Match`, after the
 * credentials, the rate limit and the read itself have run as for a 200.
 */
describe('api: conditional GETs on the hot reads', () => {
  // A database of its own: no other file's worker or writes change this merchant's answers meanwhile.
  // The property sends up to 40 × 16 × 2 requests in a minute under one key: past the default limit, which is
  // not what it tests (the rate limit's own spec does).
  const stack = useStack({ ownDatabase: 'conditional_get', overrides: { RATE_LIMIT_PER_MINUTE: '100000' } });
  let tenant: Tenant;
  /** The same api without its read cache: what a 200 would carry, from Postgres every time. */
  let oracle: Awaited<ReturnType<Stack['startApi']>>;
  let paths: string[];

  beforeAll(async () => {
    oracle = await stack.startApi({
      TEST_TUNING: JSON.stringify({ readCacheMb: 0 }),
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    tenant = await onboard(stack);
    await connect(stack, tenant);
    // More users than the short page holds: its answer and the long page's always differ.
    for (let i = 0; i < 3; i++) {
      dataOf(await tenant.client.post('/v1/users', { reference: uniqueName('more') }), 201);
    }
    const [account] = dataOf<{ id: string }[]>(
      await tenant.client.get(`/v1/users/${tenant.userId}/accounts`),
    );
    const [consent] = dataOf<{ id: string }[]>(
      await tenant.client.get(`/v1/users/${tenant.userId}/consents`),
    );
    paths = [
      `/v1/users/${tenant.userId}/accounts`,
      `/v1/accounts/${account.id}`,
      '/v1/users?limit=100',
      '/v1/users?limit=2',
      `/v1/users/${tenant.userId}`,
      `/v1/accounts/${account.id}/transactions?limit=5`,
      `/v1/users/${tenant.userId}/consents`,
      `/v1/consents/${consent.id}`,
    ];
  });
  afterAll(async () => {
    await oracle?.close();
  });

  it('tags every hot read and answers 304 only to a matching If-None-Match', async () => {
    for (const path of paths) {
      const first = await tenant.client.get(path);
      expect(first.status, path).toBe(200);
      const etag = first.headers.get('etag')!;
      expect(etag, path).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(first.headers.get('cache-control')).toBe('private, no-cache');
      expect(first.headers.get('vary')).toContain('Authorization, Cookie');
      // Another request, another tracingId: the same tag.
      const again = await tenant.client.get(path, { headers: { 'x-request-id': uniqueName('again') } });
      expect(again.body.meta.tracingId).not.toBe(first.body.meta.tracingId);
      expect(again.headers.get('etag'), path).toBe(etag);
      for (const match of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const notModified = await tenant.client.get(path, { headers: { 'if-none-match': match } });
        expect(notModified.status, `${path} ${match}`).toBe(304);
        expect(notModified.body).toBeUndefined();
        expect(notModified.headers.get('content-length'), `${path} ${match}`).toBeNull();
        expect(notModified.headers.get('etag')).toBe(etag);
        expect(notModified.headers.get('cache-control')).toBe('private, no-cache');
      }
      const other = await tenant.client.get(path, { headers: { 'if-none-match': '"nope"' } });
      expect(other.status).toBe(200);
      // HEAD: the same headers as the GET, never a 304; the same length as a GET with the same id (a
      // stored page is sent as a stream of its kept records, whose length Fastify does not know itself).
      const id = uniqueName('length');
      const sized = await tenant.client.get(path, { headers: { 'x-request-id': id } });
      expect(sized.headers.get('content-length'), path).toMatch(/^[1-9]\d*$/);
      expect(sized.headers.get('transfer-encoding'), path).toBeNull();
      const head = await tenant.client.call('HEAD', path, {
        headers: { 'if-none-match': etag, 'x-request-id': id },
      });
      expect(head.status, `HEAD ${path}`).toBe(200);
      expect(head.headers.get('etag')).toBe(etag);
      expect(head.headers.get('cache-control')).toBe('private, no-cache');
      expect(head.headers.get('content-length'), `HEAD ${path}`).toBe(sized.headers.get('content-length'));
      // Read again, the answer is the kept one: written past Fastify's onSend hooks, it must still be the
      // route's own answer, header for header and byte for byte (the oracle's route, the same request id).
      const same = { headers: { 'x-request-id': uniqueName('kept') } };
      const kept = await tenant.client.get(path, same);
      const routed = await new ApiClient(oracle.url, tenant.merchant.apiKey.key).get(path, same);
      expect(JSON.stringify(kept.body), path).toBe(JSON.stringify(routed.body));
      expect(headersOf(kept), path).toEqual(headersOf(routed));
    }
  });

  it('refuses a revoked credential before it answers 304', async () => {
    const path = `/v1/users/${tenant.userId}/accounts`;
    const etag = (await tenant.client.get(path)).headers.get('etag')!;
    const created = dataOf<{ id: string; key: string }>(
      await tenant.client.post('/v1/merchant/api-keys', { name: uniqueName('revoked') }),
      201,
    );
    const key = new ApiClient(stack.api.url, created.key);
    expect((await key.get(path, { headers: { 'if-none-match': etag } })).status).toBe(304);
    await tenant.client.delete(`/v1/merchant/api-keys/${created.id}`);
    const refused = await key.get(path, { headers: { 'if-none-match': etag } });
    expect(refused.status).toBe(401);
  });

  it(
    'answers 304 only when a 200 would carry the same bytes, whatever the writes between reads',
    async () => {
      type Step = { write: 'create' | 'rename' } | { read: number };
      const step = fc.oneof(
        fc.record({ write: fc.constantFrom<'create' | 'rename'>('create', 'rename') }),
        fc.record({ read: fc.nat({ max: 7 }) }),
      );
      const truth = new ApiClient(oracle.url, tenant.merchant.apiKey.key);
      await assertProperty(
        fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 16 }), async (steps: Step[]) => {
          const seen = new Map<string, string>();
          for (const s of steps) {
            if ('write' in s) {
              // Writes through the cached api: it reads its own writes at once (the oracle reads Postgres).
              if (s.write === 'create') {
                dataOf(await tenant.client.post('/v1/users', { reference: uniqueName('u') }), 201);
              } else {
                dataOf(
                  await tenant.client.patch(`/v1/users/${tenant.userId}`, {
                    reference: uniqueName('renamed'),
                  }),
                );
              }
              continue;
            }
            const path = paths[s.read];
            const sent = seen.get(path);
            const conditional = await tenant.client.get(path, {
              headers: sent ? { 'if-none-match': sent } : {},
            });
            const fresh = await truth.get(path);
            expect(fresh.status).toBe(200);
            if (conditional.status === 304) {
              expect(sent, path).toBeDefined();
              expect(fresh.headers.get('etag'), path).toBe(sent);
            } else {
              expect(conditional.status, path).toBe(200);
              expect(withoutTracingId(conditional), path).toBe(withoutTracingId(fresh));
              expect(conditional.headers.get('etag'), path).toBe(fresh.headers.get('etag'));
              seen.set(path, conditional.headers.get('etag')!);
            }
          }
        }),
        40,
      );
    },
    propertyTimeout(180_000),
  );
});
