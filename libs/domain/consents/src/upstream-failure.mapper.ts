import { DomainError, ErrorCode } from '#libs/errors';
import { UpstreamError } from '#libs/upstream-client';

/** The consent-token failures that mean "ask the user to authorise again". */
export const CONSENT_GONE_KINDS: readonly string[] = [
  'CONSENT_EXPIRED',
  'CONSENT_REVOKED',
  'CONSENT_CONSUMED',
  'CONSENT_INVALID',
];

function upstreamInfo(error: UpstreamError) {
  return {
    status: error.status ?? 503,
    ...(error.source ? { source: error.source } : {}),
    ...(error.tracingId ? { tracingId: error.tracingId } : {}),
    ...(error.institutionError ? { institutionError: error.institutionError } : {}),
  };
}

/**
 * UpstreamError → the envelope of API.md, extending merchants' `upstreamUnavailable` (same `upstream`
 * block) with the cases consent routes meet: the institution's own failure (424, with its message), a
 * consent the bank no longer honours, and a request the upstream refused because of the caller's input.
 */
export function mapUpstreamFailure(error: unknown, field = 'institutionId'): unknown {
  if (!(error instanceof UpstreamError)) return error;
  const upstream = upstreamInfo(error);
  switch (error.kind) {
    case 'INSTITUTION':
      return new DomainError(
        ErrorCode.INSTITUTION_ERROR,
        error.institutionError?.errorMessage ?? 'The institution could not complete the request.',
        { upstream },
      );
    case 'CONSENT_EXPIRED':
    case 'CONSENT_REVOKED':
    case 'CONSENT_CONSUMED':
    case 'CONSENT_INVALID':
      return new DomainError(
        ErrorCode.CONSENT_EXPIRED,
        'The consent is no longer valid; ask the user to authorise again.',
        { upstream },
      );
    case 'CALLER':
    case 'NOT_FOUND':
    case 'FORBIDDEN': {
      const issue = error.issues?.find((i) => i.parameter) ?? error.issues?.[0];
      return new DomainError(ErrorCode.VALIDATION_FAILED, 'The upstream refused the request.', {
        details: [
          { field: issue?.parameter ?? field, issue: issue?.message ?? 'was refused by the upstream' },
        ],
        upstream,
      });
    }
    default:
      return new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, 'The upstream could not answer.', { upstream });
  }
}
