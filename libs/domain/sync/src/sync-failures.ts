import { UnusableTransactionError } from '#libs/domain/financial-data';
import type { RunFailure } from '#libs/domain/sync-runs';
import { UpstreamError, type UpstreamErrorKind } from '#libs/upstream-client';

/** A 429 without a usable Retry-After waits this long. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 30_000;

/** Failures that another attempt of the same request cannot change. */
const PERMANENT_KINDS = new Set<UpstreamErrorKind>(['CALLER', 'AUTH', 'NOT_FOUND', 'FORBIDDEN', 'PROTOCOL']);

/** A failure no retry of the run can mend: the run ends now rather than after the queue's attempts. */
export const isPermanent = (error: unknown): boolean =>
  error instanceof UnusableTransactionError ||
  (error instanceof UpstreamError && PERMANENT_KINDS.has(error.kind));

/**
 * A call made beside the window's pages, once they have all landed: when it failed in a way worth another
 * try (a breaker half-open while it was sent refused it, a 503), it is made again now, once, rather than
 * failing an attempt whose work is done.
 */
export async function sideCall<T>(sent: Promise<T>, again: () => Promise<T>): Promise<T> {
  try {
    return await sent;
  } catch (error) {
    if (!(error instanceof UpstreamError) || !error.retryable) throw error;
    return again();
  }
}

/** What a failed run records: our code, a message, and the upstream's envelope facts when there are any. */
export function failureOf(error: unknown, code: string): RunFailure {
  if (error instanceof UpstreamError) {
    const institution = error.issues.find((i) => i.institutionError)?.institutionError;
    return {
      code: error.kind === 'INSTITUTION' ? 'INSTITUTION_ERROR' : code,
      message: institution?.errorMessage ?? error.message,
      details: {
        upstreamKind: error.kind,
        status: error.status ?? null,
        tracingId: error.tracingId ?? error.earlierTracingId ?? null,
        institutionError: institution ?? null,
      },
    };
  }
  return { code, message: error instanceof Error ? error.message : String(error) };
}
