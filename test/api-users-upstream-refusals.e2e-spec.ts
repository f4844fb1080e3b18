import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createMerchant,
  dataOf,
  type ErrorBody,
  SandboxHttp,
  type Stack,
  startStack,
  uniqueName,
} from './kit/index.js';

/**
 * What the users routes answer when the upstream refuses or fails (issue 59, 1): a refusal (its 400) of
 * what the caller sent is the caller's 400, as on the consent, payment and data routes, never a 503 that
 * reads as an outage; an upstream 424 there (no institution is involved in a user) is its failure to
 * answer, 503 with Retry-After.
 */
describe('api: the users routes under an upstream refusal', () => {
  let stack: Stack;
  let sandbox: SandboxHttp;
  let key: string;

  beforeAll(async () => {
    stack = await startStack();
    sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    key = (await createMerchant(stack.api)).apiKey.key;
  });
  afterEach(async () => {
    await sandbox?.admin('DELETE', '/faults');
  });
  afterAll(async () => {
    await stack?.close();
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

  it.each(calls)(
    '%s: an upstream 400 is 400 VALIDATION_FAILED naming the field',
    async (_name, method, path, call) => {
      // A fault of one method: the user a PATCH or DELETE is made on is created (POST) all the same.
      await fault(method, path, 400);
      const response = await call();
      expect(response.status).toBe(400);
      const { error } = response.body as ErrorBody;
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.upstream?.status).toBe(400);
      expect(error.details?.[0]?.field).toBeTruthy();
      expect(response.headers.get('retry-after')).toBeNull();
    },
  );

  it.each(calls)(
    '%s: an upstream 424 is 503 UPSTREAM_UNAVAILABLE with Retry-After',
    async (_name, method, path, call) => {
      await fault(method, path, 424);
      const response = await call();
      expect(response.status).toBe(503);
      const { error } = response.body as ErrorBody;
      expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(error.upstream?.status).toBe(424);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    },
  );
});
