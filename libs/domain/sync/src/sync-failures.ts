import { UnusableTransactionError } from '#libs/domain/financial-data';
import type { RunFailure } from '#libs/domain/sync-runs';
import { UpstreamError, type UpstreamErrorKind } from '#libs/upstream-client';

/** The codes a failed run records, each with what it means to a merchant (the events' document says so). */
export const SYNC_FAILURE_CODES = {
  SYNC_FAILED: 'reading from the bank failed for good (refused, or failing until the retries ran out)',
  INSTITUTION_ERROR: 'the bank itself failed',
  CONSENT_EXPIRED: 'the bank no longer honours the consent (consent.revoked or consent.expired says so)',
  CONSENT_NOT_AUTHORISED: 'the consent has ended or holds no token',
  CONSENT_SCOPE:
    'the consent does not cover transactions (no ACCOUNT_TRANSACTIONS scope): the account is stopped, nothing asked of the bank',
  ACCOUNT_CLOSED: 'the bank no longer lists the account under the consent',
  DAILY_LIMIT_REACHED:
    "the bank's daily allowance of reads of the account without the user is spent: the sync waits for its next day (the account's sync.dailyLimitUntil)",
} as const;

export type SyncFailureCode = keyof typeof SYNC_FAILURE_CODES;

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
export function failureOf(error: unknown, code: SyncFailureCode): RunFailure {
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
