import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, dataOf, type ErrorBody, sandboxOf, useStack, useTenant } from './kit/index.js';

/**
 * What re-authorising and revoking a consent answer when the upstream refuses (issue 81, 4): a refusal
 * (its 400, 405, 409, 410, 415, 422) will not change on a retry, so it is the caller's 400 naming the
 * reason, as on the users routes, never a 503 with Retry-After that a merchant would retry for ever.
 * The consent is left as it was. An upstream that fails to answer is still 503 with Retry-After.
 */
describe('api: re-authorise and revoke under an upstream refusal', () => {
  const stack = useStack();
  const sandbox = sandboxOf(stack);
  const tenant = useTenant(stack);
  // One consent for every case: a refused call changes nothing, here or upstream.
  let consentId: string;

  beforeAll(async () => {
    consentId = await connect(stack, tenant);
  });
  afterEach(async () => {
    await sandbox.admin('DELETE', '/faults');
  });

  const calls = [
    [
      'POST /v1/consents/{id}/reauthorise',
      'PATCH',
      '/account-auth-requests',
      () =>
        tenant.client.post(`/v1/consents/${consentId}/reauthorise`, {
          redirectUrl: 'https://app.merchant.example/banks/again',
        }),
    ],
    [
      'DELETE /v1/consents/{id}',
      'DELETE',
      '/consents/**',
      () => tenant.client.delete(`/v1/consents/${consentId}`),
    ],
  ] as const;
  const refusals = [400, 405, 409, 410, 415, 422];
  const cases = calls.flatMap(([name, method, path, call]) =>
    [...refusals, 503].map((upstream) => [name, upstream, method, path, call] as const),
  );

  it.each(cases)('%s: an upstream %i', async (_name, upstream, method, path, call) => {
    // More than the client's attempts, so a retried answer meets the fault every time.
    const rule = { method, path, status: upstream, count: 4 };
    expect((await sandbox.admin('POST', '/faults', rule)).status).toBe(201);
    const response = await call();
    const { error } = response.body as ErrorBody;
    expect(error.upstream?.status).toBe(upstream);
    if (upstream === 503) {
      expect([response.status, error.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    } else {
      // A refusal says why and gives no Retry-After: waiting changes nothing.
      expect([response.status, error.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(error.details?.[0]?.field).toBeTruthy();
      expect(error.details?.[0]?.issue).toBeTruthy();
      expect(response.headers.get('retry-after')).toBeNull();
    }
    const consent = dataOf<{ status: string }>(await tenant.client.get(`/v1/consents/${consentId}`));
    expect(consent.status).toBe('AUTHORIZED');
  });
});
