import { DomainError, ErrorCode } from '#libs/errors';
import { UpstreamError } from '#libs/upstream-client';

/** An upstream failure the caller cannot fix: 503 UPSTREAM_UNAVAILABLE, with the upstream's trace. */
export function upstreamUnavailable(error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error;
  return new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, 'The upstream could not answer.', {
    upstream: {
      status: error.status ?? 503,
      ...(error.source ? { source: error.source } : {}),
      ...(error.tracingId ? { tracingId: error.tracingId } : {}),
    },
  });
}
