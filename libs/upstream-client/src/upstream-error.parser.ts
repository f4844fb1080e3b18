import {
  type InstitutionError,
  UpstreamError,
  type UpstreamErrorKind,
  type UpstreamFieldError,
  type UpstreamIssue,
} from './upstream.error.js';

// Reading a failed answer (any of the spec's error shapes, §7.1) into an UpstreamError and its kind.

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
    const bankStatus = institutionStatus(parsed);
    // A bank's own 4xx (other than 408/429) will not change on a retry; its 5xx and silence may.
    const retryable =
      bankStatus === undefined || bankStatus >= 500 || bankStatus === 408 || bankStatus === 429;
    return { kind: 'INSTITUTION', retryable } satisfies Classification;
  }
  if (status === 429) {
    // The institution's own 429 (it names itself, as a 424 does): the account's daily allowance, which no
    // retry within the day changes. The upstream's own is its rate limit: wait and retry.
    return institutionStatus(parsed) === 429
      ? ({ kind: 'DAILY_LIMIT', retryable: false } satisfies Classification)
      : ({ kind: 'RATE_LIMITED', retryable: true } satisfies Classification);
  }
  if (status === 408) return { kind: 'UNAVAILABLE', retryable: true } satisfies Classification;
  if (status === 403) return { kind: 'FORBIDDEN', retryable: false } satisfies Classification;
  if (status === 404) return { kind: 'NOT_FOUND', retryable: false } satisfies Classification;
  if (status >= 500) {
    return { kind: 'UNAVAILABLE', retryable: status !== 501 && status !== 505 } satisfies Classification;
  }
  return { kind: 'CALLER', retryable: false } satisfies Classification;
}

/** The status the institution itself answered, when the upstream passes it on. */
const institutionStatus = (parsed: {
  issues: readonly UpstreamIssue[];
  institutionError?: InstitutionError;
}) =>
  parsed.institutionError?.httpStatusCode ??
  parsed.issues.find((i) => i.institutionError?.httpStatusCode)?.institutionError?.httpStatusCode;

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
