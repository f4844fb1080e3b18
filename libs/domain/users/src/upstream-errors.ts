import { DomainError, ErrorCode } from '#libs/errors';
import { UpstreamError } from '#libs/upstream-client';

/**
 * An upstream failure as the merchant API reports it: the institution's fault is 424 INSTITUTION_ERROR,
 * anything else the caller cannot fix is 503 UPSTREAM_UNAVAILABLE; both keep the upstream's tracingId.
 * (The merchants lib has the 503 half only and does not export it.)
 */
export function upstreamFailure(error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error;
  const upstream = {
    status: error.status ?? 503,
    ...(error.source ? { source: error.source } : {}),
    ...(error.tracingId ? { tracingId: error.tracingId } : {}),
  };
  if (error.kind === 'INSTITUTION') {
    return new DomainError(ErrorCode.INSTITUTION_ERROR, 'The institution could not answer.', {
      upstream: {
        ...upstream,
        ...(error.institutionError ? { institutionError: error.institutionError } : {}),
      },
    });
  }
  return new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, 'The upstream could not answer.', { upstream });
}
