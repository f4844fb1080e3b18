import { describe, expect, it } from 'vitest';
import { UpstreamError } from './upstream.error.js';
import {
  Breakers,
  countsAgainstInstitution,
  DEFAULT_RETRY,
  retryDelayMs,
  shouldRetry,
} from './upstream-resilience.policy.js';

const error = (init: Partial<ConstructorParameters<typeof UpstreamError>[1]>, cause?: unknown) =>
  new UpstreamError('x', { kind: 'UNAVAILABLE', shape: 'standard', retryable: true, ...init, cause });

describe('retry decisions', () => {
  it('waits at least as long as Retry-After asks, else the backoff', () => {
    expect(retryDelayMs(120, undefined)).toBe(120);
    expect(retryDelayMs(120, 1000)).toBe(1000);
    expect(retryDelayMs(3000, 1000)).toBe(3000);
  });

  it('retries a safe request on retryable failures only', () => {
    expect(shouldRetry(error({ status: 503 }), 'safe', DEFAULT_RETRY)).toBe(true);
    expect(shouldRetry(error({ shape: 'timeout' }), 'safe', DEFAULT_RETRY)).toBe(true);
    expect(
      shouldRetry(error({ kind: 'RATE_LIMITED', status: 429, retryAfterMs: 2000 }), 'safe', DEFAULT_RETRY),
    ).toBe(true);
    expect(shouldRetry(error({ kind: 'CALLER', retryable: false }), 'safe', DEFAULT_RETRY)).toBe(false);
    expect(shouldRetry(new Error('not ours'), 'safe', DEFAULT_RETRY)).toBe(false);
  });

  it('gives up at once when Retry-After is longer than the client will wait', () => {
    const late = error({ kind: 'RATE_LIMITED', retryAfterMs: DEFAULT_RETRY.maxRetryAfterMs + 1 });
    expect(shouldRetry(late, 'safe', DEFAULT_RETRY)).toBe(false);
  });

  it('never retries an open circuit', () => {
    expect(shouldRetry(error({ shape: 'circuitOpen' }), 'safe', DEFAULT_RETRY)).toBe(false);
  });

  it('retries a non-idempotent request only when it never left (connection refused)', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const reset = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    expect(shouldRetry(error({ shape: 'network' }, refused), 'unsent', DEFAULT_RETRY)).toBe(true);
    expect(shouldRetry(error({ shape: 'network' }, reset), 'unsent', DEFAULT_RETRY)).toBe(false);
    expect(shouldRetry(error({ shape: 'timeout' }), 'unsent', DEFAULT_RETRY)).toBe(false);
    expect(shouldRetry(error({ status: 500 }), 'unsent', DEFAULT_RETRY)).toBe(false);
  });

  it('counts institution failures and outages against the breaker, not caller errors', () => {
    expect(countsAgainstInstitution(error({ kind: 'INSTITUTION', status: 424 }))).toBe(true);
    expect(countsAgainstInstitution(error({ status: 500, source: 'INSTITUTION' }))).toBe(true);
    expect(countsAgainstInstitution(error({ status: 502 }))).toBe(true);
    expect(countsAgainstInstitution(error({ shape: 'timeout' }))).toBe(true);
    // The service's own failures and our request's faults are not the bank's.
    expect(countsAgainstInstitution(error({ status: 500, source: 'YAPILY' }))).toBe(false);
    expect(countsAgainstInstitution(error({ status: 501 }))).toBe(false);
    expect(countsAgainstInstitution(error({ status: 505 }))).toBe(false);
    expect(countsAgainstInstitution(error({ shape: 'network' }))).toBe(false);
    expect(countsAgainstInstitution(error({ shape: 'circuitOpen' }))).toBe(false);
    expect(countsAgainstInstitution(error({ kind: 'CALLER', status: 400 }))).toBe(false);
    expect(countsAgainstInstitution(error({ kind: 'RATE_LIMITED', status: 429 }))).toBe(false);
  });
});

describe('Breakers', () => {
  it('keeps a bounded number of institution breakers, only while they count failures', () => {
    const breakers = new Breakers(
      { consecutiveFailures: 5, halfOpenAfterMs: 1000, maxBreakers: 2 },
      {
        onChange: () => {},
      },
    );
    const bankDown = error({ status: 502 });
    for (const id of ['a', 'b', 'c']) breakers.admit(id, 'op', 'r').done(bankDown, false);
    expect(breakers.size).toBe(2);
    breakers.admit('c', 'op', 'r').done(undefined, true);
    expect(breakers.size).toBe(1);
    // Ids that never failed get no breaker at all.
    breakers.admit('never-failed', 'op', 'r').done(error({ kind: 'CALLER', status: 400 }), false);
    expect(breakers.size).toBe(1);
  });

  it('shows a breaker open only while it refuses calls: an idle one past its wait awaits its test call', () => {
    const breakers = new Breakers(
      { consecutiveFailures: 1, halfOpenAfterMs: 1000, maxBreakers: 10 },
      { onChange: () => {} },
    );
    breakers.admit('bank', 'op', 'r').done(error({ status: 502 }), false);
    const now = Date.now();
    expect([...breakers.unwell(now)]).toEqual([['bank', 'open']]);
    expect([...breakers.unwell(now + 1000)]).toEqual([['bank', 'halfOpen']]);
    expect(breakers.state('bank')).toBe('open');
    const quick = new Breakers(
      { consecutiveFailures: 1, halfOpenAfterMs: 0, maxBreakers: 10 },
      { onChange: () => {} },
    );
    quick.admit('bank', 'op', 'r').done(error({ status: 502 }), false);
    quick.admit('bank', 'op', 'r').done(undefined, true);
    expect([...quick.unwell()]).toEqual([]);
  });
});

describe('the service breaker before the upstream has ever answered', () => {
  const refused = () =>
    error({ shape: 'network' }, Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
  const options = { consecutiveFailures: 2, halfOpenAfterMs: 60_000, maxBreakers: 10 };

  it('does not open on connection failures while the upstream is not there yet (a cold start)', () => {
    const breakers = new Breakers(options, { onChange: () => {} });
    for (let i = 0; i < 10; i++) breakers.admit(undefined, 'op', 'r').done(refused(), false);
    expect(breakers.state('upstream')).toBe('closed');
  });

  it('opens on them once the upstream has answered, even with an error status', () => {
    const breakers = new Breakers(options, { onChange: () => {} });
    breakers.admit(undefined, 'op', 'r').done(error({ kind: 'CALLER', status: 404 }), false);
    for (let i = 0; i < 2; i++) breakers.admit(undefined, 'op', 'r').done(refused(), false);
    expect(breakers.state('upstream')).toBe('open');
  });

  it('still opens on the upstream’s own failures before any answer: a 500 is an answer', () => {
    const breakers = new Breakers(options, { onChange: () => {} });
    for (let i = 0; i < 2; i++)
      breakers.admit(undefined, 'op', 'r').done(error({ status: 500, source: 'YAPILY' }), false);
    expect(breakers.state('upstream')).toBe('open');
  });
});
