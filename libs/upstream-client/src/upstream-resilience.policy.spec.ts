import { describe, expect, it } from 'vitest';
import { UpstreamError } from './upstream.error.js';
import { DEFAULT_RETRY, retryDelayMs, shouldRetry } from './upstream-resilience.policy.js';

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
});
