import { describe, expect, it } from 'vitest';
import {
  classify,
  parseErrorBody,
  parseRetryAfter,
  upstreamErrorFromResponse,
} from './upstream-error.parser.js';

const standard = (code: number, issues: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    error: {
      tracingId: 't-1',
      code,
      status: 'X',
      supportUrl: 'https://support',
      source: 'YAPILY',
      issues,
      ...extra,
    },
  });

describe('parseErrorBody', () => {
  it('reads the standard shape with issues and institutionError', () => {
    const parsed = parseErrorBody(
      standard(424, [{ type: 'INSTITUTION_ERROR', code: 'INSTITUTION_ERROR', message: 'bank down' }], {
        source: 'INSTITUTION',
        institutionError: { errorMessage: 'bank down', httpStatusCode: 502 },
      }),
    );
    expect(parsed).toMatchObject({
      shape: 'standard',
      tracingId: 't-1',
      source: 'INSTITUTION',
      supportUrl: 'https://support',
      message: 'bank down',
      institutionError: { errorMessage: 'bank down', httpStatusCode: 502 },
      issues: [{ type: 'INSTITUTION_ERROR', code: 'INSTITUTION_ERROR' }],
    });
  });

  it('keeps numeric issue codes (webhook endpoints)', () => {
    expect(parseErrorBody(standard(400, [{ type: 'BAD_REQUEST', code: 10600 }])).issues[0].code).toBe(10600);
  });

  it('reads the minimal shape', () => {
    const parsed = parseErrorBody(
      JSON.stringify({ error: { code: 401, status: 'UNAUTHORIZED', message: 'no' } }),
    );
    expect(parsed).toMatchObject({ shape: 'minimal', message: 'no', statusText: 'UNAUTHORIZED', issues: [] });
    expect(parsed.tracingId).toBeUndefined();
  });

  it('reads the field-validation shape', () => {
    const parsed = parseErrorBody(
      JSON.stringify({ errors: [{ fieldName: 'categorisationType', error: 'MANDATORY' }] }),
    );
    expect(parsed).toMatchObject({
      shape: 'fieldValidation',
      fieldErrors: [{ fieldName: 'categorisationType', error: 'MANDATORY' }],
    });
  });

  it('survives HTML, empty, whitespace, truncated and unexpected JSON bodies', () => {
    expect(parseErrorBody('<html>502 Bad Gateway</html>').shape).toBe('nonJson');
    expect(parseErrorBody('').shape).toBe('nonJson');
    expect(parseErrorBody('  \n').shape).toBe('nonJson');
    expect(parseErrorBody('{"error": {"code": 5').shape).toBe('nonJson');
    expect(parseErrorBody('[1,2]').shape).toBe('unrecognised');
    expect(parseErrorBody('"oops"').shape).toBe('unrecognised');
    expect(parseErrorBody('{"message":"x"}').shape).toBe('unrecognised');
    expect(parseErrorBody('{"error":"x"}').shape).toBe('unrecognised');
  });

  it('tolerates wrong member types without throwing', () => {
    const parsed = parseErrorBody(
      JSON.stringify({ error: { tracingId: 5, issues: [null, 'x', { code: {} }] } }),
    );
    expect(parsed.shape).toBe('standard');
    expect(parsed.tracingId).toBeUndefined();
    expect(parsed.issues).toEqual([
      {
        type: undefined,
        code: undefined,
        parameter: undefined,
        message: undefined,
        institutionError: undefined,
      },
    ]);
  });
});

describe('classify', () => {
  const issue = (code: string) => ({ issues: [{ type: 'CONSENT', code }] });
  it.each([
    [403, issue('CONSENT_EXPIRED'), 'CONSENT_EXPIRED', false],
    [403, issue('CONSENT_REVOKED'), 'CONSENT_REVOKED', false],
    [403, issue('CONSENT_CONSUMED'), 'CONSENT_CONSUMED', false],
    [401, issue('CONSENT_INVALID'), 'CONSENT_INVALID', false],
    [400, issue('CONSENT_MISSING'), 'CALLER', false],
    [401, { issues: [{ type: 'CREDENTIALS', code: 'CREDENTIALS_MISSING' }] }, 'AUTH', false],
    [401, { issues: [] }, 'AUTH', false],
    [400, { issues: [] }, 'CALLER', false],
    [409, { issues: [] }, 'CALLER', false],
    [415, { issues: [] }, 'CALLER', false],
    [403, { issues: [{ code: 'FEATURE_NOT_SUPPORTED' }] }, 'FORBIDDEN', false],
    [404, { issues: [] }, 'NOT_FOUND', false],
    [408, { issues: [] }, 'UNAVAILABLE', true],
    [429, { issues: [] }, 'RATE_LIMITED', true],
    // The bank's own 429, passed on: the account's daily allowance, not the upstream's rate limit.
    [429, { issues: [], institutionError: { httpStatusCode: 429 } }, 'DAILY_LIMIT', false],
    [429, { issues: [{ institutionError: { httpStatusCode: 429 } }] }, 'DAILY_LIMIT', false],
    [424, { issues: [], institutionError: { httpStatusCode: 502 } }, 'INSTITUTION', true],
    [424, { issues: [] }, 'INSTITUTION', true],
    [424, { issues: [], institutionError: { httpStatusCode: 400 } }, 'INSTITUTION', false],
    [500, { issues: [] }, 'UNAVAILABLE', true],
    [503, { issues: [] }, 'UNAVAILABLE', true],
    [501, { issues: [] }, 'UNAVAILABLE', false],
  ] as const)('%i %j → %s (retryable %s)', (status, parsed, kind, retryable) => {
    expect(classify(status, parsed)).toEqual({ kind, retryable });
  });
});

describe('classify on a consent call (the request carried a consent token)', () => {
  const consent = (code: string) => ({ shape: 'standard' as const, issues: [{ type: 'CONSENT', code }] });
  it.each([
    [403, consent('CONSENT_EXPIRED'), 'CONSENT_EXPIRED'],
    [403, consent('CONSENT_REVOKED'), 'CONSENT_REVOKED'],
    [403, consent('CONSENT_CONSUMED'), 'CONSENT_CONSUMED'],
    [403, consent('CONSENT_INVALID'), 'CONSENT_INVALID'],
    [401, consent('CONSENT_INVALID'), 'CONSENT_INVALID'],
    // A 401 that names no consent fault is about our credentials (or a proxy's), never the consent's.
    [401, { shape: 'standard' as const, issues: [] }, 'AUTH'],
    [401, { shape: 'standard' as const, issues: [{ type: 'UNAUTHORIZED', code: 10700 }] }, 'AUTH'],
    [401, { shape: 'minimal' as const, issues: [] }, 'AUTH'],
    [
      403,
      { shape: 'standard' as const, issues: [{ type: 'CREDENTIALS', code: 'CREDENTIALS_INVALID' }] },
      'AUTH',
    ],
    // Refusals of this one call: the consent is untouched.
    [403, consent('FEATURE_NOT_IN_CONSENT_SCOPE'), 'FORBIDDEN'],
    [403, { issues: [{ type: 'FEATURE_NOT_SUPPORTED', code: 'FEATURE_NOT_SUPPORTED' }] }, 'FORBIDDEN'],
    [403, consent('CONSENT_NOT_AUTHORIZED'), 'FORBIDDEN'],
    [403, consent('CONSENT_WRONG_TYPE'), 'FORBIDDEN'],
    [403, { issues: [{ type: 'FORBIDDEN', code: 'SOMETHING_NEW' }] }, 'FORBIDDEN'],
    [403, { shape: 'nonJson' as const, issues: [] }, 'FORBIDDEN'],
    [403, { shape: 'standard' as const, issues: [{ code: 10403 }] }, 'FORBIDDEN'],
  ] as const)('%i %j → %s', (status, parsed, kind) => {
    expect(classify(status, parsed, true)).toEqual({ kind, retryable: false });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter(['3', '9'], now)).toBe(3000);
  });
  it('ignores absent or unreadable values and never goes negative', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });
});

describe('upstreamErrorFromResponse', () => {
  it('builds one error with everything a caller and a log need, and nothing secret', () => {
    const error = upstreamErrorFromResponse({
      status: 429,
      body: standard(429, [{ type: 'TOO_MANY_REQUESTS', code: 'TOO_MANY_REQUESTS', message: 'slow down' }]),
      retryAfter: '1',
      requestId: 'r-1',
      operation: 'getAccounts',
    });
    expect(error).toMatchObject({
      name: 'UpstreamError',
      kind: 'RATE_LIMITED',
      retryable: true,
      status: 429,
      shape: 'standard',
      tracingId: 't-1',
      requestId: 'r-1',
      retryAfterMs: 1000,
      code: 'TOO_MANY_REQUESTS',
      message: 'getAccounts: upstream answered 429: slow down',
    });
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ kind: 'RATE_LIMITED', tracingId: 't-1' });
  });

  it('names the fields of a field-validation error in the message', () => {
    const error = upstreamErrorFromResponse({
      status: 400,
      body: JSON.stringify({ errors: [{ fieldName: 'limit', error: 'MANDATORY' }] }),
    });
    expect(error.message).toBe('upstream answered 400: limit MANDATORY');
    expect(error.kind).toBe('CALLER');
  });
});
