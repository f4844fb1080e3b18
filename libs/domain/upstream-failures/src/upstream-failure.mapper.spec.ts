import { describe, expect, it } from 'vitest';
import { DomainError, ErrorCode } from '#libs/errors';
import { UpstreamError, type UpstreamErrorInit, type UpstreamErrorKind } from '#libs/upstream-client';
import { mapUpstreamFailure } from './upstream-failure.mapper.js';

const failure = (kind: UpstreamErrorKind, init: Partial<UpstreamErrorInit> = {}) =>
  new UpstreamError(`upstream ${kind}`, {
    kind,
    shape: 'standard',
    retryable: false,
    status: 400,
    tracingId: 'trace-1',
    ...init,
  });

const mapped = (error: unknown, options?: Parameters<typeof mapUpstreamFailure>[1]) => {
  const result = mapUpstreamFailure(error, options);
  expect(result).toBeInstanceOf(DomainError);
  return result as DomainError;
};

describe('mapUpstreamFailure', () => {
  it('passes anything that is not an UpstreamError through untouched', () => {
    const other = new Error('boom');
    expect(mapUpstreamFailure(other)).toBe(other);
    expect(mapUpstreamFailure('x', { field: 'a' })).toBe('x');
  });

  it('answers 424 INSTITUTION_ERROR with the bank’s own message and the upstream block', () => {
    const error = mapped(
      failure('INSTITUTION', {
        status: 424,
        source: 'INSTITUTION',
        institutionError: { errorMessage: 'bank is down', httpStatusCode: 502 },
      }),
    );
    expect(error).toMatchObject({ code: ErrorCode.INSTITUTION_ERROR, status: 424, message: 'bank is down' });
    expect(error.extra.upstream).toEqual({
      status: 424,
      source: 'INSTITUTION',
      tracingId: 'trace-1',
      institutionError: { errorMessage: 'bank is down', httpStatusCode: 502 },
    });
  });

  it.each(['CONSENT_EXPIRED', 'CONSENT_REVOKED', 'CONSENT_CONSUMED', 'CONSENT_INVALID'] as const)(
    '%s → 409 CONSENT_EXPIRED',
    (kind) => {
      expect(mapped(failure(kind, { status: 403 }))).toMatchObject({
        code: ErrorCode.CONSENT_EXPIRED,
        status: 409,
      });
    },
  );

  it('answers a refusal of one call as 403 FORBIDDEN, quoting the upstream’s issue', () => {
    const error = mapped(
      failure('FORBIDDEN', {
        status: 403,
        issues: [{ type: 'CONSENT', code: 'FEATURE_NOT_IN_CONSENT_SCOPE', message: 'not in scope' }],
      }),
      { field: 'request' },
    );
    expect(error).toMatchObject({ code: ErrorCode.FORBIDDEN, status: 403 });
    expect(error.message).toContain('not in scope');
  });

  it('blames the named field for a refused request, preferring the parameter the upstream named', () => {
    const named = mapped(
      failure('CALLER', { issues: [{ parameter: '$.accountRequest.expiresAt', message: 'in the past' }] }),
      { field: 'expiresAt' },
    );
    expect(named).toMatchObject({ code: ErrorCode.VALIDATION_FAILED, status: 400 });
    expect(named.extra.details).toEqual([{ field: '$.accountRequest.expiresAt', issue: 'in the past' }]);
    const unnamed = mapped(failure('NOT_FOUND', { status: 404 }), { field: 'institutionId' });
    expect(unnamed.extra.details).toEqual([{ field: 'institutionId', issue: 'was refused by the upstream' }]);
  });

  it('answers a refusal that no caller input caused as 503: our request, not theirs', () => {
    expect(mapped(failure('CALLER'))).toMatchObject({ code: ErrorCode.UPSTREAM_UNAVAILABLE, status: 503 });
    expect(mapped(failure('NOT_FOUND', { status: 404 }))).toMatchObject({ status: 503 });
  });

  it('answers a 404 for a resource we hold as a lasting 409 CONFLICT that names the resource', () => {
    const error = mapped(failure('NOT_FOUND', { status: 404 }), { resource: 'user' });
    expect(error).toMatchObject({ code: ErrorCode.CONFLICT, status: 409 });
    expect(error.message).toMatch(/upstream has no record of this user/);
    expect(error.extra.upstream).toMatchObject({ status: 404, tracingId: 'trace-1' });
  });

  it.each(['AUTH', 'RATE_LIMITED', 'UNAVAILABLE', 'PROTOCOL'] as const)(
    '%s → 503 UPSTREAM_UNAVAILABLE',
    (kind) => {
      expect(mapped(failure(kind, { status: undefined }), { field: 'x', resource: 'user' })).toMatchObject({
        code: ErrorCode.UPSTREAM_UNAVAILABLE,
        status: 503,
        extra: { upstream: { status: 503 } },
      });
    },
  );

  it('passes the upstream’s Retry-After on, in whole seconds', () => {
    const error = mapped(failure('RATE_LIMITED', { status: 429, retryAfterMs: 12_500 }));
    expect(error.extra.retryAfterSeconds).toBe(13);
  });
});
