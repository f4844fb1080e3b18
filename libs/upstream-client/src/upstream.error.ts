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

const CONSENT_KINDS: Record<string, UpstreamErrorKind> = {
  CONSENT_EXPIRED: 'CONSENT_EXPIRED',
  CONSENT_REVOKED: 'CONSENT_REVOKED',
  CONSENT_CONSUMED: 'CONSENT_CONSUMED',
  CONSENT_INVALID: 'CONSENT_INVALID',
  // A missing header is our bug, not the consent's state.
  CONSENT_MISSING: 'CALLER',
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function institutionErrorOf(v: unknown): InstitutionError | undefined {
  if (!isRecord(v)) return undefined;
  return { errorMessage: str(v.errorMessage), httpStatusCode: num(v.httpStatusCode) };
}

function issuesOf(v: unknown): UpstreamIssue[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isRecord).map((i) => ({
    type: str(i.type),
    code: typeof i.code === 'number' || typeof i.code === 'string' ? i.code : undefined,
    parameter: str(i.parameter),
    message: str(i.message),
    institutionError: institutionErrorOf(i.institutionError),
  }));
}

export interface ParsedErrorBody {
  shape: 'standard' | 'minimal' | 'fieldValidation' | 'nonJson' | 'unrecognised';
  message?: string;
  statusText?: string;
  tracingId?: string;
  issues: UpstreamIssue[];
  fieldErrors: UpstreamFieldError[];
  institutionError?: InstitutionError;
  source?: string;
  supportUrl?: string;
}

/** Reads any of the spec's error shapes (7.1) from a raw body; never throws. */
export function parseErrorBody(text: string): ParsedErrorBody {
  const empty = { issues: [], fieldErrors: [] };
  let body: unknown;
  try {
    body = text.trim() === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (body === undefined) return { ...empty, shape: 'nonJson' };
  if (!isRecord(body)) return { ...empty, shape: 'unrecognised' };
  if (Array.isArray(body.errors)) {
    const fieldErrors = body.errors.filter(isRecord).map((e) => ({
      fieldName: str(e.fieldName) ?? '',
      error: str(e.error) ?? '',
    }));
    return { ...empty, shape: 'fieldValidation', fieldErrors };
  }
  const error = body.error;
  if (!isRecord(error)) return { ...empty, shape: 'unrecognised' };
  const issues = issuesOf(error.issues);
  const tracingId =
    str(error.tracingId) ??
    (isRecord(body.meta) ? str(body.meta.tracingId) : undefined) ??
    (isRecord(body.metadata) ? str(body.metadata.tracingId) : undefined);
  const standard =
    'issues' in error || 'tracingId' in error || 'source' in error || 'institutionError' in error;
  return {
    shape: standard ? 'standard' : 'minimal',
    message: str(error.message) ?? issues.find((i) => i.message)?.message,
    statusText: str(error.status),
    tracingId,
    issues,
    fieldErrors: [],
    institutionError: institutionErrorOf(error.institutionError),
    source: str(error.source),
    supportUrl: str(error.supportUrl),
  };
}

export interface Classification {
  kind: UpstreamErrorKind;
  retryable: boolean;
}

/**
 * The consent-state codes: the only issues that say the consent itself is no longer usable. They are the
 * sandbox's contract, not the spec's (neither the spec nor the openapi names them), see {@link classify}.
 */
function consentKindOf(issues: readonly UpstreamIssue[]): UpstreamErrorKind | undefined {
  for (const issue of issues) {
    const kind = typeof issue.code === 'string' ? CONSENT_KINDS[issue.code] : undefined;
    if (kind) return kind;
  }
  return undefined;
}

/** Issues about our application credentials (upstream spec §7: type CREDENTIALS, codes CREDENTIALS_*). */
function credentialsIssue(issues: readonly UpstreamIssue[]): boolean {
  return issues.some((i) => i.type === 'CREDENTIALS' || String(i.code ?? '').startsWith('CREDENTIALS'));
}

/**
 * What an HTTP error answer means (README, upstream-client "Errors"). `consentCall`: the
 * call carried a consent token. Then a 401 is about that token unless it names our credentials (a
 * CREDENTIALS* issue, or the minimal-shape 401 the spec uses for invalid credentials). A 403 is a consent
 * fault only when an issue code says the consent expired, was revoked, consumed or is invalid: a feature
 * outside the consent's scope or the institution's offer, and any 403 we cannot read, refuse that one call
 * (FORBIDDEN), because marking a consent gone sends the user back to the bank and cannot be undone.
 */
export function classify(
  status: number,
  parsed: {
    shape?: ParsedErrorBody['shape'];
    issues: readonly UpstreamIssue[];
    institutionError?: InstitutionError;
  },
  consentCall = false,
) {
  const consentKind = consentKindOf(parsed.issues);
  if (consentCall && (status === 401 || status === 403)) {
    if (credentialsIssue(parsed.issues)) return { kind: 'AUTH', retryable: false } satisfies Classification;
    if (status === 401 && parsed.shape === 'minimal' && parsed.issues.length === 0)
      return { kind: 'AUTH', retryable: false } satisfies Classification;
    if (consentKind) return { kind: consentKind, retryable: false } satisfies Classification;
    // A 401 is about our credentials (upstream spec §7) unless the upstream names the consent: a gateway's or
    // proxy's bare 401 must not expire every consent it touches, which no one could undo.
    if (status === 401) return { kind: 'AUTH', retryable: false } satisfies Classification;
    return { kind: 'FORBIDDEN', retryable: false } satisfies Classification;
  }
  if (consentKind) return { kind: consentKind, retryable: false } satisfies Classification;
  if (status === 401) return { kind: 'AUTH', retryable: false } satisfies Classification;
  if (status === 424) {
    const bankStatus =
      parsed.institutionError?.httpStatusCode ??
      parsed.issues.find((i) => i.institutionError?.httpStatusCode)?.institutionError?.httpStatusCode;
    // A bank's own 4xx (other than 408/429) will not change on a retry; its 5xx and silence may.
    const retryable =
      bankStatus === undefined || bankStatus >= 500 || bankStatus === 408 || bankStatus === 429;
    return { kind: 'INSTITUTION', retryable } satisfies Classification;
  }
  if (status === 429) return { kind: 'RATE_LIMITED', retryable: true } satisfies Classification;
  if (status === 408) return { kind: 'UNAVAILABLE', retryable: true } satisfies Classification;
  if (status === 403) return { kind: 'FORBIDDEN', retryable: false } satisfies Classification;
  if (status === 404) return { kind: 'NOT_FOUND', retryable: false } satisfies Classification;
  if (status >= 500) {
    return { kind: 'UNAVAILABLE', retryable: status !== 501 && status !== 505 } satisfies Classification;
  }
  return { kind: 'CALLER', retryable: false } satisfies Classification;
}

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date (RFC 9110 10.2.3). Undefined when absent
 * or unreadable; never negative.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  nowMs = Date.now(),
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date always names its day and month; this keeps Date.parse from reading "-1" as a year.
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

export interface HttpErrorContext {
  status: number;
  body: string;
  retryAfter?: string | string[];
  requestId?: string;
  operation?: string;
  nowMs?: number;
  /** The request carried a consent token (see {@link classify}). */
  consentCall?: boolean;
}

/** Builds the error for a non-2xx answer. */
export function upstreamErrorFromResponse(ctx: HttpErrorContext): UpstreamError {
  const parsed = parseErrorBody(ctx.body);
  const { kind, retryable } = classify(ctx.status, parsed, ctx.consentCall);
  const detail = parsed.message ?? parsed.fieldErrors.map((f) => `${f.fieldName} ${f.error}`).join(', ');
  const what = ctx.operation ? `${ctx.operation}: ` : '';
  return new UpstreamError(`${what}upstream answered ${ctx.status}${detail ? `: ${detail}` : ''}`, {
    kind,
    retryable,
    shape: parsed.shape,
    status: ctx.status,
    statusText: parsed.statusText,
    tracingId: parsed.tracingId,
    requestId: ctx.requestId,
    operation: ctx.operation,
    issues: parsed.issues,
    fieldErrors: parsed.fieldErrors,
    institutionError: parsed.institutionError,
    source: parsed.source,
    supportUrl: parsed.supportUrl,
    retryAfterMs: parseRetryAfter(ctx.retryAfter, ctx.nowMs),
  });
}
