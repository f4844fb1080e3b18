import type { ApiErrorDetail, ApiUpstreamErrorInfo, ErrorCode } from './models.js';

/**
 * Codes of the SDK's own, for failures that never reached the API's error envelope:
 * - `NETWORK_ERROR`: no answer at all (refused connection, DNS, TLS, a reset, an offline browser);
 * - `UNEXPECTED_RESPONSE`: an answer outside the envelope (a proxy's HTML 502, a body that is not JSON).
 */
export type SdkErrorCode = 'NETWORK_ERROR' | 'UNEXPECTED_RESPONSE';
export type BffErrorCode = ErrorCode | SdkErrorCode;

export interface BffErrorInit {
  status: number;
  code: BffErrorCode;
  message: string;
  tracingId?: string;
  retryAfter?: number;
  details?: ApiErrorDetail[];
  upstream?: ApiUpstreamErrorInfo;
  cause?: unknown;
}

/**
 * Every failed call of the SDK: a non-2xx answer of the API (its error envelope, whatever the route) or
 * a call that got no answer. `code` is the API's closed enum (or one of the SDK's own), so a `switch` on it
 * is checked by the compiler.
 */
export class BffError extends Error {
  override readonly name = 'BffError';
  /** The HTTP status; 0 when there was no answer. */
  readonly status: number;
  readonly code: BffErrorCode;
  /** The request's id (`x-request-id`): quote it to the operator. */
  readonly tracingId: string | undefined;
  /** Seconds to wait before trying again, from `Retry-After` (429, 503). */
  readonly retryAfter: number | undefined;
  /** Per-field issues of a VALIDATION_FAILED, the limit of a VRP_LIMIT_EXCEEDED, … */
  readonly details: ApiErrorDetail[] | undefined;
  /** What the bank or the aggregator said, when the failure was theirs. */
  readonly upstream: ApiUpstreamErrorInfo | undefined;

  constructor(init: BffErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.tracingId = init.tracingId;
    this.retryAfter = init.retryAfter;
    this.details = init.details;
    this.upstream = init.upstream;
  }

  /**
   * The error of a non-2xx answer: the envelope's fields when the body is one, `UNEXPECTED_RESPONSE`
   * otherwise. `body` is the answer's text, or its JSON already parsed (as openapi-fetch's `error`).
   */
  static fromResponse(response: Response, body: unknown): BffError {
    const parsed = typeof body === 'string' ? parseJson(body) : body;
    const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
    const headerId = response.headers.get('x-request-id') ?? undefined;
    const envelope = isEnvelope(parsed) ? parsed.error : undefined;
    if (!envelope) {
      return new BffError({
        status: response.status,
        code: 'UNEXPECTED_RESPONSE',
        message: `HTTP ${response.status} without the API's error envelope`,
        tracingId: headerId,
        retryAfter,
      });
    }
    return new BffError({
      status: response.status,
      code: envelope.code,
      message: envelope.message,
      tracingId: envelope.tracingId ?? headerId,
      retryAfter,
      details: envelope.details,
      upstream: envelope.upstream,
    });
  }

  /**
   * The error an event stream ended with (its SSE `error` event, the error envelope the stream's next
   * request would get): a revoked key, an expired session, an erased user, a disabled merchant.
   */
  static fromStreamEnd(data: string): BffError {
    const parsed = parseJson(data);
    if (!isEnvelope(parsed)) {
      return new BffError({
        status: 200,
        code: 'UNEXPECTED_RESPONSE',
        message: 'The event stream ended with an error outside the envelope',
      });
    }
    const { status, code, message, tracingId, details } = parsed.error;
    return new BffError({ status: status ?? 0, code, message, tracingId, details });
  }

  /** A call that got no answer (the fetch itself failed). */
  static network(cause: unknown): BffError {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new BffError({ status: 0, code: 'NETWORK_ERROR', message: `No answer: ${reason}`, cause });
  }
}

/** True when `error` is a BffError, of `code` when given. */
export function isBffError(error: unknown, code?: BffErrorCode): error is BffError {
  return error instanceof BffError && (code === undefined || error.code === code);
}

/**
 * The reasons a webhook delivery is refused: a header missing, a timestamp unreadable or more than five
 * minutes from the clock (a replay), no signature of the secret, or a verified body that is not an event.
 */
export type WebhookVerificationCode =
  'MISSING_HEADERS' | 'INVALID_TIMESTAMP' | 'INVALID_SIGNATURE' | 'INVALID_PAYLOAD';

/** Thrown by `verifyEvent`: answer the delivery with a 4xx and act on nothing in it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** `Retry-After` in seconds: a number of seconds or an HTTP date. */
export function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

interface Envelope {
  error: {
    code: ErrorCode;
    status?: number;
    message: string;
    tracingId?: string;
    details?: ApiErrorDetail[];
    upstream?: ApiUpstreamErrorInfo;
  };
}

function isEnvelope(body: unknown): body is Envelope {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const { error } = body;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}
