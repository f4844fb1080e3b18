import { DomainError, ErrorCode, reconnectHint, type UpstreamErrorInfo } from '#libs/errors';
import { UpstreamError } from '#libs/upstream-client';

export interface UpstreamFailureOptions {
  /**
   * The request field the upstream judged, when the caller's own input went upstream: a refusal of it
   * (the upstream's 400/422, or a 404 for something the caller named, such as an institution) is then
   * the caller's 400 VALIDATION_FAILED on that field. Without it, a refusal is our request's fault and the
   * caller gets 503 UPSTREAM_UNAVAILABLE, as for any other failure they cannot fix.
   */
  field?: string;
  /**
   * The resource of ours the call was about (`user`, `consent`), when we hold it: an upstream 404 then
   * means the upstream no longer knows it, a lasting 409 CONFLICT that says so, never a retryable 503.
   */
  resource?: string;
  /**
   * The call started something at an institution the caller named (a consent, a payment): an upstream
   * 403 then means the institution does not offer that flow or feature, 422 FEATURE_UNSUPPORTED. Implied
   * by `field: 'institutionId'`.
   */
  atInstitution?: boolean;
  /**
   * The call involves no institution (the upstream's own users): an upstream 424 there is the upstream's
   * failure to answer, 503 UPSTREAM_UNAVAILABLE, not an institution's error.
   */
  noInstitution?: boolean;
}

/** The `upstream` block of the envelope: status, source and trace, never a request header or body. */
export function upstreamInfo(error: UpstreamError): UpstreamErrorInfo {
  return {
    status: error.status ?? 503,
    ...(error.source ? { source: error.source } : {}),
    ...(error.tracingId ? { tracingId: error.tracingId } : {}),
    ...(error.institutionError ? { institutionError: error.institutionError } : {}),
  };
}

const mostSpecificIssue = (error: UpstreamError) =>
  error.issues.find((i) => i.parameter) ?? error.issues.find((i) => i.message) ?? error.issues[0];

/**
 * The one translation of an UpstreamError into the merchant API's envelope, for every domain library
 * (switching on `kind`, never on statuses). Anything that is not an UpstreamError is returned as it is,
 * so callers can write `throw mapUpstreamFailure(error, …)` in any catch.
 */
export function mapUpstreamFailure(error: unknown, options: UpstreamFailureOptions = {}): unknown {
  if (!(error instanceof UpstreamError)) return error;
  const upstream = upstreamInfo(error);
  const issue = mostSpecificIssue(error);
  switch (error.kind) {
    case 'INSTITUTION':
      if (options.noInstitution) return unavailable(upstream, error);
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
        `The consent is no longer valid; ask the user to ${reconnectHint()}`,
        { upstream },
      );
    case 'FORBIDDEN':
      // Asked of an institution the caller named: it does not offer this flow or feature (a redirect
      // consent at an embedded-only bank, a payment at a data-only one). Not an authentication matter.
      if (options.atInstitution || options.field === 'institutionId') {
        return new DomainError(
          ErrorCode.FEATURE_UNSUPPORTED,
          `The institution does not offer this${issue?.message ? `: ${issue.message}` : '.'} GET /v1/institutions lists each bank's flows and features.`,
          { upstream, details: [{ field: 'institutionId', issue: 'does not offer this flow or feature' }] },
        );
      }
      // A refusal of this one call (a feature outside the consent's scope or the institution's offer).
      return new DomainError(
        ErrorCode.FORBIDDEN,
        `The upstream refused this call${issue?.message ? `: ${issue.message}` : '.'}`,
        { upstream },
      );
    case 'NOT_FOUND':
      if (options.resource) {
        return new DomainError(
          ErrorCode.CONFLICT,
          `The upstream has no record of this ${options.resource}; it may have been deleted there.`,
          { upstream },
        );
      }
      return options.field ? refusedField(options.field, issue, upstream) : unavailable(upstream, error);
    case 'CALLER':
      return options.field ? refusedField(options.field, issue, upstream) : unavailable(upstream, error);
    case 'DAILY_LIMIT':
      return dailyLimitReached(error.retryAfterMs, upstream);
    default:
      return unavailable(upstream, error);
  }
}

function refusedField(
  field: string,
  issue: UpstreamError['issues'][number] | undefined,
  upstream: UpstreamErrorInfo,
): DomainError {
  return new DomainError(ErrorCode.VALIDATION_FAILED, 'The upstream refused the request.', {
    details: [{ field: issue?.parameter ?? field, issue: issue?.message ?? 'was refused by the upstream' }],
    upstream,
  });
}

/**
 * How long to tell a caller to wait when the upstream failed without saying (a 5xx or a timeout with no
 * Retry-After): the client has already retried for about this long, and an outage is rarely shorter.
 */
export const UPSTREAM_RETRY_AFTER_SECONDS = 5;

/** 503 with Retry-After always: the upstream's own (or an open breaker's wait), else ours. */
function unavailable(upstream: UpstreamErrorInfo, error: UpstreamError): DomainError {
  return new DomainError(ErrorCode.UPSTREAM_UNAVAILABLE, 'The upstream could not answer.', {
    upstream,
    retryAfterSeconds:
      error.retryAfterMs !== undefined
        ? Math.max(1, Math.ceil(error.retryAfterMs / 1000))
        : UPSTREAM_RETRY_AFTER_SECONDS,
  });
}

/**
 * The bank's daily allowance of reads of an account without the user present is spent until `retryAfterMs`
 * from now (else until the bank's next day, UTC midnight, as banks count it).
 */
export function dailyLimitReached(
  retryAfterMs: number | undefined,
  upstream?: UpstreamErrorInfo,
): DomainError {
  const resetsAt = bankHoldUntil(retryAfterMs);
  return new DomainError(
    ErrorCode.DAILY_LIMIT_REACHED,
    `The bank's daily allowance of reads of this account without the user present is spent until ${resetsAt.toISOString()}; a read with the user present (psu-ip-address, or a user session) still goes through.`,
    { upstream, retryAfterSeconds: Math.max(1, Math.ceil((resetsAt.getTime() - Date.now()) / 1000)) },
  );
}

/**
 * Until when a bank's refusal for its daily allowance holds the account: its Retry-After from `now`, else
 * the bank's next day (UTC midnight, as banks count it).
 */
export const bankHoldUntil = (retryAfterMs: number | undefined, now = Date.now()) =>
  new Date(now + (retryAfterMs ?? msToUtcMidnight(now)));

/** What is left of the UTC day: banks count their daily allowances by it. */
export const msToUtcMidnight = (now = Date.now()) => 86_400_000 - (now % 86_400_000);
