import type { Open } from './upstream.types.js';

/** Which wire form the failure came in (upstream spec §7.1), or how the call failed without an answer. */
export type UpstreamErrorShape =
  | 'standard'
  | 'minimal'
  | 'fieldValidation'
  /** Not JSON at all, or an empty body (a proxy's HTML 502, say). */
  | 'nonJson'
  /** JSON, but none of the documented error shapes. */
  | 'unrecognised'
  | 'network'
  | 'timeout'
  /** Refused locally: the institution's circuit breaker is open. */
  | 'circuitOpen';

/**
 * What the failure means for the caller. A closed set: code that handles errors switches on this, never
 * on statuses or issue codes.
 */
export type UpstreamErrorKind =
  /** The consent's validity ran out: ask the user to re-authorise. */
  | 'CONSENT_EXPIRED'
  /** The user or the bank revoked the consent. */
  | 'CONSENT_REVOKED'
  /** A single-use (payment) consent was already used. */
  | 'CONSENT_CONSUMED'
  /** The token is unknown, malformed or superseded by a re-authorisation. */
  | 'CONSENT_INVALID'
  /** The institution failed (424). */
  | 'INSTITUTION'
  /** Our request was wrong (400, 409, 415, 422, field validation, a missing consent header). */
  | 'CALLER'
  /** Our application credentials were refused (401 without a consent issue). */
  | 'AUTH'
  | 'NOT_FOUND'
  /**
   * This call alone is refused (a feature outside the consent's scope or the institution's offer, or a
   * 403 that names no consent state); the consent stays as it is.
   */
  | 'FORBIDDEN'
  | 'RATE_LIMITED'
  /**
   * The bank's daily allowance of reads of this account without the user present is spent (a 429 the
   * institution sent, PSD2's four a day): the account's own limit, not the bank failing; it resets with
   * the bank's day (Retry-After).
   */
  | 'DAILY_LIMIT'
  /** 5xx, network error, timeout or an open circuit breaker. */
  | 'UNAVAILABLE'
  /** A 2xx the client could not read, or paging that broke the spec's rules. */
  | 'PROTOCOL';

export interface InstitutionError {
  errorMessage?: string;
  httpStatusCode?: number;
}

export interface UpstreamIssue {
  type?: string;
  code?: string | number;
  parameter?: string;
  message?: string;
  institutionError?: InstitutionError;
}

export interface UpstreamFieldError {
  fieldName: string;
  error: Open<'MANDATORY'>;
}

export interface UpstreamErrorInit {
  kind: UpstreamErrorKind;
  shape: UpstreamErrorShape;
  retryable: boolean;
  status?: number;
  statusText?: string;
  tracingId?: string;
  requestId?: string;
  operation?: string;
  issues?: UpstreamIssue[];
  fieldErrors?: UpstreamFieldError[];
  institutionError?: InstitutionError;
  source?: Open<'YAPILY' | 'INSTITUTION'>;
  supportUrl?: string;
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * The one error the client throws for anything the upstream (or the way to it) did wrong. It carries no
 * request headers or bodies, so it is safe to log whole.
 */
export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly kind: UpstreamErrorKind;
  readonly shape: UpstreamErrorShape;
  /** Worth trying again later. Whether the client itself retried also depends on the request's safety. */
  readonly retryable: boolean;
  /** HTTP status; absent when no answer came (network, timeout, circuit open). */
  readonly status: number | undefined;
  readonly statusText: string | undefined;
  readonly tracingId: string | undefined;
  readonly requestId: string | undefined;
  readonly operation: string | undefined;
  readonly issues: readonly UpstreamIssue[];
  readonly fieldErrors: readonly UpstreamFieldError[];
  readonly institutionError: InstitutionError | undefined;
  readonly source: Open<'YAPILY' | 'INSTITUTION'> | undefined;
  readonly supportUrl: string | undefined;
  readonly retryAfterMs: number | undefined;
  /**
   * Earlier attempts of the same call that may have reached the server and had their answer lost (no
   * answer, or a 5xx). Set by the transport on the error it finally throws: after one of these, a refusal
   * proves nothing about whether the call took effect (a payment resent and refused may be paid).
   */
  attemptsInDoubt = 0;
  /**
   * Of those, the attempts that got no answer at all (a dropped connection, a timeout): what the server
   * did with them is unknown, where a 5xx at least says the read was not served (a bank's daily count).
   */
  attemptsUnanswered = 0;
  /**
   * The upstream's tracing id of the latest earlier attempt of the same call that had one, set by the
   * transport: what to quote to its support when this attempt got none (a breaker open, a timeout).
   */
  earlierTracingId: string | undefined;

  constructor(message: string, init: UpstreamErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.shape = init.shape;
    this.retryable = init.retryable;
    this.status = init.status;
    this.statusText = init.statusText;
    this.tracingId = init.tracingId;
    this.requestId = init.requestId;
    this.operation = init.operation;
    this.issues = init.issues ?? [];
    this.fieldErrors = init.fieldErrors ?? [];
    this.institutionError = init.institutionError;
    this.source = init.source;
    this.supportUrl = init.supportUrl;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** The first issue's code, the most specific thing the upstream said. */
  get code(): string | number | undefined {
    return this.issues[0]?.code;
  }

  /** What logs need, without the stack (the `err` serializer adds that). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      kind: this.kind,
      shape: this.shape,
      retryable: this.retryable,
      status: this.status,
      tracingId: this.tracingId,
      requestId: this.requestId,
      operation: this.operation,
      code: this.code,
      issues: this.issues,
      fieldErrors: this.fieldErrors,
      institutionError: this.institutionError,
      retryAfterMs: this.retryAfterMs,
      ...(this.attemptsInDoubt > 0 ? { attemptsInDoubt: this.attemptsInDoubt } : {}),
      ...(this.earlierTracingId ? { earlierTracingId: this.earlierTracingId } : {}),
    };
  }
}
