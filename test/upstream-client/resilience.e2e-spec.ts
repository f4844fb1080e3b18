import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import { paymentRequest } from '../kit/sandbox-payments.js';
import { accountRequest, failure, useUpstreamKit } from '../kit/upstream-test-kit.js';

const fail = (fn: () => Promise<unknown>) => failure<UpstreamError>(fn);

describe('upstream client: retries, timeouts and circuit breakers under fault injection', () => {
  const kit = useUpstreamKit();
  let client: UpstreamClient;

  beforeAll(() => {
    client = kit.client();
  });

  it('retries a GET through two 500s and succeeds; counts the retries in the metrics', async () => {
    const { client: observed, registry } = kit.observedClient();
    await kit.fault({ method: 'GET', path: '/institutions', status: 500, count: 2 });
    const result = await observed.institutions.list();
    expect(result.data.length).toBeGreaterThan(0);
    expect(await kit.hits()).toEqual([2]);
    const metrics = await registry.getMetricsAsJSON();
    const retries = metrics.find((m) => m.name === 'upstream_retries_total')!;
    expect(retries.values).toEqual([
      expect.objectContaining({ value: 2, labels: { operation: 'getInstitutions' } }),
    ]);
    const duration = metrics.find((m) => m.name === 'upstream_request_duration_seconds')!;
    expect(duration.values).toContainEqual(
      expect.objectContaining({
        metricName: 'upstream_request_duration_seconds_count',
        value: 1,
        labels: { operation: 'getInstitutions', outcome: 'success' },
      }),
    );
  });

  it('retries through the flaky institution (500 then 424) on a GET', async () => {
    const { token } = await kit.dataConsent('sandbox-flaky', 'flaky-retry');
    for (let i = 0; i < 3; i += 1) {
      const accounts = await client.data.getAccounts({ consent: token, institutionId: 'sandbox-flaky' });
      expect(accounts.data).toHaveLength(3);
    }
  });

  it('honours Retry-After on 429 (waits at least that long), and gives up at once when it is too long', async () => {
    await kit.fault({ method: 'GET', path: '/institutions', status: 429, retryAfterSeconds: 1, count: 1 });
    const started = performance.now();
    await client.institutions.list();
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);

    await kit.reset();
    await kit.fault({ method: 'GET', path: '/institutions', status: 429, retryAfterSeconds: 60, count: 1 });
    const error = await fail(() => client.institutions.list());
    expect(error).toMatchObject({ kind: 'RATE_LIMITED', retryAfterMs: 60_000 });
    expect(await kit.hits()).toEqual([1]);
  });

  it('never retries a non-idempotent POST on a 5xx', async () => {
    await kit.fault({ method: 'POST', path: '/account-auth-requests', status: 503, count: 3 });
    const error = await fail(() =>
      client.consents.createAccountAuthorisation({
        institutionId: 'sandbox-redirect',
        applicationUserId: 'once',
        accountRequest: accountRequest(),
      }),
    );
    expect(error).toMatchObject({ kind: 'UNAVAILABLE', status: 503 });
    expect(await kit.hits()).toEqual([1]);
  });

  it('retries a payment POST because it carries paymentIdempotencyId, and pays once', async () => {
    const request = paymentRequest('retry-pay-1', 7.25);
    const token = await kit.authorisedPayment(client, request);
    await kit.fault({ method: 'POST', path: '/payments', status: 503, count: 1 });
    const paid = await client.payments.create(request, {
      consent: token,
      institutionId: 'sandbox-redirect',
    });
    expect(paid.data.paymentIdempotencyId).toBe('retry-pay-1');
    expect(await kit.hits()).toEqual([1]);
    const details = await client.payments.getDetails(paid.data.id, {
      consent: token,
      institutionId: 'sandbox-redirect',
    });
    expect(details.data.payments).toHaveLength(1);
  });

  it('times out a slow attempt and retries it; fails with shape timeout when every attempt is slow', async () => {
    const fast = kit.client({ timeoutMs: 100, retry: { maxRetries: 1, initialDelayMs: 1, maxDelayMs: 2 } });
    await kit.fault({ method: 'GET', path: '/institutions', latencyMs: 400, count: 1 });
    expect((await fast.institutions.list()).data.length).toBeGreaterThan(0);

    await kit.reset();
    // Slow enough that two attempts waited out would take 10 s, so the bound below tells a cut attempt
    // from a waited one on any machine, however loaded.
    await kit.fault({ method: 'GET', path: '/institutions', latencyMs: 5_000 });
    const started = performance.now();
    const error = await fail(() => fast.institutions.list());
    expect(error).toMatchObject({
      kind: 'UNAVAILABLE',
      shape: 'timeout',
      retryable: true,
      status: undefined,
    });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('retries a dropped connection on a GET (shape network)', async () => {
    // Dropped connections count against the service-wide breaker; keep it out of this test's way.
    const dropping = kit.client({ breaker: false });
    await kit.fault({ method: 'GET', path: '/institutions', drop: true, count: 1 });
    expect((await dropping.institutions.list()).data.length).toBeGreaterThan(0);
    await kit.fault({ method: 'GET', path: '/institutions', drop: true });
    const error = await fail(() => dropping.institutions.list());
    expect(error).toMatchObject({ kind: 'UNAVAILABLE', shape: 'network' });
  });

  it('rethrows the caller abort as is and does not retry it', async () => {
    await kit.fault({ method: 'GET', path: '/institutions', latencyMs: 300 });
    const controller = new AbortController();
    const call = client.institutions.list({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client went away')), 20);
    await expect(call).rejects.toThrow('client went away');
    expect(await kit.hits()).toEqual([1]);
  });

  it('opens one institution’s breaker after consecutive failures, leaves the others alone, and recovers', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { client: guarded, registry } = kit.observedClient({
      retry: { maxRetries: 0 },
      breaker: { consecutiveFailures: 3, halfOpenAfterMs: 60_000 },
    });
    const a = await kit.dataConsent('sandbox-redirect', 'breaker-a');
    const b = await kit.dataConsent('sandbox-embedded', 'breaker-b');
    const onA = { consent: a.token, institutionId: 'sandbox-redirect' };
    const onB = { consent: b.token, institutionId: 'sandbox-embedded' };
    const accountA = (await guarded.data.getAccounts(onA)).data[0].id;
    const accountB = (await guarded.data.getAccounts(onB)).data[0].id;

    await kit.fault({ method: 'GET', path: `/accounts/${accountA}/balances`, status: 502 });
    for (let i = 0; i < 3; i += 1) {
      expect(await fail(() => guarded.data.getAccountBalances(accountA, onA))).toMatchObject({ status: 502 });
    }
    expect(guarded.breakerState('sandbox-redirect')).toBe('open');
    const refused = await fail(() => guarded.data.getAccountBalances(accountA, onA));
    expect(refused).toMatchObject({
      kind: 'UNAVAILABLE',
      shape: 'circuitOpen',
      retryable: true,
      status: undefined,
    });
    expect(await kit.hits()).toEqual([3]);

    // The other bank is untouched.
    expect((await guarded.data.getAccountBalances(accountB, onB)).status).toBe(200);
    expect(guarded.breakerState('sandbox-embedded')).toBe('closed');

    // Caller errors do not count: a 404 for the other bank leaves its breaker closed.
    for (let i = 0; i < 4; i += 1) await fail(() => guarded.data.getAccount('missing', onB));
    expect(guarded.breakerState('sandbox-embedded')).toBe('closed');

    // After halfOpenAfter, one test call goes through; the bank has recovered, so the breaker closes.
    await kit.admin.admin('DELETE', '/faults');
    vi.setSystemTime(Date.now() + 61_000);
    expect((await guarded.data.getAccountBalances(accountA, onA)).status).toBe(200);
    expect(guarded.breakerState('sandbox-redirect')).toBe('closed');

    const transitions = (await registry.getMetricsAsJSON()).find(
      (m) => m.name === 'upstream_circuit_transitions_total',
    )!;
    expect(transitions.values.map((v) => v.labels.state).sort()).toEqual(['closed', 'halfOpen', 'open']);
  });

  it('does not retry into an open breaker', async () => {
    const guarded = kit.client({
      retry: { maxRetries: 5, initialDelayMs: 1, maxDelayMs: 2 },
      breaker: { consecutiveFailures: 2, halfOpenAfterMs: 60_000 },
    });
    const { token } = await kit.dataConsent('sandbox-redirect', 'breaker-c');
    await kit.fault({ method: 'GET', path: '/accounts', status: 500 });
    const error = await fail(() =>
      guarded.data.getAccounts({ consent: token, institutionId: 'sandbox-redirect' }),
    );
    expect(error.shape).toBe('circuitOpen');
    expect(await kit.hits()).toEqual([2]);
  });
});
