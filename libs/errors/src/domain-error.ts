/** The closed set of error codes of the merchant API (docs/api-guide.md, "Errors"); each has exactly one HTTP status. */
export enum ErrorCode {
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  FORBIDDEN = 'FORBIDDEN',
  MERCHANT_DISABLED = 'MERCHANT_DISABLED',
  NOT_FOUND = 'NOT_FOUND',
  CONFLICT = 'CONFLICT',
  IDEMPOTENCY_MISMATCH = 'IDEMPOTENCY_MISMATCH',
  RATE_LIMITED = 'RATE_LIMITED',
  DAILY_LIMIT_REACHED = 'DAILY_LIMIT_REACHED',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  CONSENT_EXPIRED = 'CONSENT_EXPIRED',
  CONSENT_NOT_AUTHORISED = 'CONSENT_NOT_AUTHORISED',
  VRP_LIMIT_EXCEEDED = 'VRP_LIMIT_EXCEEDED',
  FEATURE_UNSUPPORTED = 'FEATURE_UNSUPPORTED',
  EVENTS_EXPIRED = 'EVENTS_EXPIRED',
  CURSOR_EXPIRED = 'CURSOR_EXPIRED',
  UPSTREAM_UNAVAILABLE = 'UPSTREAM_UNAVAILABLE',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
  INSTITUTION_ERROR = 'INSTITUTION_ERROR',
  INTERNAL = 'INTERNAL',
}

export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  [ErrorCode.VALIDATION_FAILED]: 400,
  [ErrorCode.UNAUTHENTICATED]: 401,
  [ErrorCode.FORBIDDEN]: 403,
  [ErrorCode.MERCHANT_DISABLED]: 403,
  [ErrorCode.NOT_FOUND]: 404,
  [ErrorCode.CONFLICT]: 409,
  [ErrorCode.IDEMPOTENCY_MISMATCH]: 409,
  [ErrorCode.RATE_LIMITED]: 429,
  [ErrorCode.DAILY_LIMIT_REACHED]: 429,
  [ErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [ErrorCode.CONSENT_EXPIRED]: 409,
  [ErrorCode.CONSENT_NOT_AUTHORISED]: 409,
  [ErrorCode.VRP_LIMIT_EXCEEDED]: 422,
  [ErrorCode.FEATURE_UNSUPPORTED]: 422,
  [ErrorCode.EVENTS_EXPIRED]: 410,
  [ErrorCode.CURSOR_EXPIRED]: 410,
  [ErrorCode.UPSTREAM_UNAVAILABLE]: 503,
  [ErrorCode.SERVICE_UNAVAILABLE]: 503,
  [ErrorCode.INSTITUTION_ERROR]: 424,
  [ErrorCode.INTERNAL]: 500,
};

export interface ErrorDetail {
  field: string;
  issue: string;
}

export interface UpstreamErrorInfo {
  status: number;
  source?: string;
  tracingId?: string;
  institutionError?: unknown;
}

export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    status: number;
    message: string;
    tracingId: string;
    details?: ErrorDetail[];
    upstream?: UpstreamErrorInfo;
    /** The Retry-After header's seconds, in the body too: a 429 or 503 always says when to try again. */
    retryAfterSeconds?: number;
  };
}

/** What services throw. The exception filter is the only place that turns it into HTTP. */
export class DomainError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: {
      details?: ErrorDetail[];
      upstream?: UpstreamErrorInfo;
      retryAfterSeconds?: number;
    } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.status = ERROR_STATUS[code];
  }
}

/**
 * A VALIDATION_FAILED whose message names the first problem (what an SDK user logging `error.message`
 * sees), with every problem in `details`.
 */
export function invalidRequest(details: ErrorDetail[]): DomainError {
  const [first] = details;
  const name = first?.field.split('.').pop() ?? '';
  // An issue that already starts with its field is not prefixed again; class-validator's refusal of an
  // unknown field names it itself ("property secret should not exist"), given here with its whole path.
  const unknown = `property ${name} `;
  const issue =
    first &&
    (first.issue.startsWith(unknown)
      ? `property ${first.field} ${first.issue.slice(unknown.length)}`
      : first.issue.startsWith(name)
        ? first.issue
        : `${first.field} ${first.issue}`);
  const more = details.length > 1 ? ` (and ${details.length - 1} more in details)` : '';
  return new DomainError(ErrorCode.VALIDATION_FAILED, issue ? `${issue}${more}` : 'The request is invalid.', {
    details,
  });
}

/** Said to a caller whose credential is otherwise good, on a request or as a stream's end: the merchant's own state. */
export function merchantDisabled(): DomainError {
  return new DomainError(
    ErrorCode.MERCHANT_DISABLED,
    'This merchant is disabled: its keys and sessions are refused until the operator enables it.',
  );
}
