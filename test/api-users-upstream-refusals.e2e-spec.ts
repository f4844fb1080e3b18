import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, dataOf, type ErrorBody, SandboxHttp, uniqueName, useStack } from './kit/index.js';

/**
 * What the users routes answer when the upstream refuses or fails (issue 59, 1): a refusal (its 400) of
 * what the caller sent is the caller's 400, as on the consent, payment and data routes, never a 503 that
 * reads as an outage; an upstream 424 there (no institution is involved in a user) is its failure to
 * answer, 503 with Retry-After.
 */
describe('api: the users routes under an upstream refusal', () => {
  const stack = useStack();
  let sandbox: SandboxHttp;
  let key: string;

  beforeAll(async () => {
    sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    key = (await createMerchant(stack.api)).apiKey.key;
  });
  afterEach(async () => {
    await sandbox?.admin('DELETE', '/faults');
  });

  const client = () => stack.anonymous.as(key);
  // More than the client's attempts, so a retried refusal meets the fault every time.
  const fault = async (method: string, path: string, status: number) =>
    expect((await sandbox.admin('POST', '/faults', { method, path, status, count: 4 })).status).toBe(201);
  const created = async () =>
    dataOf<{ id: string }>(await client().post('/v1/users', { reference: uniqueName('ref') }), 201).id;

  const calls = [
    [
      'POST /v1/users',
      'POST',
      '/users',
      async () => client().post('/v1/users', { reference: uniqueName('ref') }),
    ],
    [
      'PATCH /v1/users/{id}',
      'PATCH',
      '/users/**',
      async () => client().patch(`/v1/users/${await created()}`, { reference: uniqueName('ref') }),
    ],
    [
      'DELETE /v1/users/{id}',
      'DELETE',
      '/users/**',
      async () => client().delete(`/v1/users/${await created()}`),
    ],
  ] as const;

  // The upstream's status, what the caller gets, and its code: a refusal names the field and gives no
  // Retry-After (waiting changes nothing); a failure to answer always gives one.
  const outcomes = [
    [400, 400, 'VALIDATION_FAILED'],
    [424, 503, 'UPSTREAM_UNAVAILABLE'],
  ] as const;
  const cases = calls.flatMap(([name, method, path, call]) =>
    outcomes.map(([upstream, status, code]) => [name, upstream, status, code, method, path, call] as const),
  );

  it.each(cases)('%s: an upstream %i is %i %s', async (_name, upstream, status, code, method, path, call) => {
    // A fault of one method: the user a PATCH or DELETE is made on is created (POST) all the same.
    await fault(method, path, upstream);
    const response = await call();
    expect(response.status).toBe(status);
    const { error } = response.body as ErrorBody;
    expect(error.code).toBe(code);
    expect(error.upstream?.status).toBe(upstream);
    if (status === 400) {
      expect(error.details?.[0]?.field).toBeTruthy();
      expect(response.headers.get('retry-after')).toBeNull();
    } else {
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});
