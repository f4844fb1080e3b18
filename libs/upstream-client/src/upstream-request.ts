import type { UpstreamOperationName } from '#libs/upstream-openapi';
import { UpstreamError } from './upstream.error.js';
import type { PsuHeaders, UpstreamLinks, UpstreamMeta, UpstreamResult } from './upstream.types.js';
import { BodyTooLarge } from './upstream-body.reader.js';
import { mayHaveLanded, QUEUE_TIMEOUT, type RetryMode } from './upstream-resilience.policy.js';

/*
 * What one upstream request is and what its answer becomes, as plain functions: the transport sends it.
 * Kept whole: each part describes the same one request, from its options to its answer or error.
 */

/** Per-call options every operation accepts. */
export interface CallOptions {
  /** `sub-application`: act for this sub-application (a merchant). */
  subApplication?: string;
  /** `psu-id`, `psu-corporate-id`, `psu-ip-address`, where the institution requires them. */
  psu?: PsuHeaders;
  /**
   * The institution the call reaches, which selects its circuit breaker. Operations whose body names
   * the institution use that; consent-token calls require it (the BFF stores it with the consent).
   */
  institutionId?: string;
  /**
   * Sent as `x-request-id`; when absent, the running request's or job's id (its context), else a fresh
   * UUID, so calls made for a request correlate with it unasked. The
   * first attempt (of the first page) sends it as is; retries add `.a<attempt>` and later pages
   * `.p<page>`, so each exchange has its own id that still starts with the caller's.
   */
  requestId?: string;
  /** Aborts the call, including waits between retries; the abort reason is rethrown as is. */
  signal?: AbortSignal;
  /** Overrides the per-attempt timeout (counted from when the request is sent on a connection). */
  timeoutMs?: number;
  /**
   * A budget for the whole call, retries and their waits included. Each attempt's timeout is capped by
   * what is left, and a retry whose wait would end past it is not made. Default: the client's
   * `deadlineMs`, which is unset by default (then attempts × timeouts + waits bound the call).
   */
  deadlineMs?: number;
}

/** Options of calls that need the user's consent token (the `consent` header). */
export interface ConsentCallOptions extends CallOptions {
  /** The consent token. Sent only as the `consent` header; never logged, never put in an error. */
  consent: string;
  /** Required: consent calls name no institution themselves, and the breaker needs one. */
  institutionId: string;
}

/** What the transport itself accepts: every option, plus the page a paging iterator is on. */
export interface SendOptions extends CallOptions {
  consent?: string;
  /** 1-based page of a paging walk, for the request id; absent for single calls. */
  page?: number;
}

type QueryValue = string | number | boolean | undefined | readonly (string | number)[];

export interface RequestSpec {
  /** The operation's name (upstream-operations.ts): the metrics label and what errors and logs say. */
  operation: UpstreamOperationName;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path with every dynamic segment already encoded (use {@link segment}). */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  contentType?: string;
  /** `bare`: the route answers the resource itself, not the `{ meta, data }` envelope. */
  envelope?: 'bare';
  retry: RetryMode | 'never';
  /** `required`: the `consent` header is sent (and must be a non-empty token); `none`: never sent. */
  consent: 'required' | 'none';
  institutionId?: string;
  /**
   * For a DELETE: the data to return when a retry gets 404, which means an earlier attempt whose
   * answer was lost did the deleting.
   */
  goneOnRetry?: unknown;
}

export interface BodyLimits {
  /** Largest 2xx body read (a 1000-transaction page is about 1 MB). */
  successBytes: number;
  /** Largest error body read: errors are small, and a huge one should not cost memory. */
  errorBytes: number;
}

export const DEFAULT_BODY_LIMITS: BodyLimits = { successBytes: 32 * 1024 * 1024, errorBytes: 64 * 1024 };

export function callerError(operation: string, message: string): UpstreamError {
  return new UpstreamError(`${operation}: ${message}`, {
    kind: 'CALLER',
    shape: 'unrecognised',
    retryable: false,
    operation,
  });
}

/** Encodes one path segment; ids come from users and banks, so they must never change the path. */
export function segment(value: string): string {
  if (value === '') throw callerError('path', 'an id in an upstream path must not be empty');
  // Encoding leaves dots alone, and a URL parser anywhere on the way would resolve them as steps.
  if (value === '.' || value === '..')
    throw callerError('path', `an id in an upstream path cannot be ${value}`);
  return encodeURIComponent(value);
}

export function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const k = encodeURIComponent(key).replace(/%5B/g, '[').replace(/%5D/g, ']');
    const values: readonly (string | number | boolean)[] = Array.isArray(value) ? value : [value as string];
    for (const v of values) parts.push(`${k}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

const JSON_TYPE = 'application/json;charset=UTF-8';

/** Who the transport is to the upstream: the same on every request. */
export interface Credentials {
  authorization: string;
  apiVersion: string;
}

/** Every header of one attempt, built in this one place. */
export function requestHeaders(
  spec: RequestSpec,
  options: SendOptions,
  requestId: string,
  credentials: Credentials,
): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: credentials.authorization,
    accept: 'application/json',
    'x-request-id': requestId,
  };
  if (credentials.apiVersion === '2.0-ALPHA') headers['x-yapily-api-version'] = '2.0-ALPHA';
  // Only routes that take a consent get one: options objects are not checked for extra members.
  if (spec.consent === 'required' && options.consent) headers.consent = options.consent;
  if (options.subApplication !== undefined) headers['sub-application'] = options.subApplication;
  if (options.psu?.id !== undefined) headers['psu-id'] = options.psu.id;
  if (options.psu?.corporateId !== undefined) headers['psu-corporate-id'] = options.psu.corporateId;
  if (options.psu?.ipAddress !== undefined) headers['psu-ip-address'] = options.psu.ipAddress;
  if (spec.body !== undefined) headers['content-type'] = spec.contentType ?? JSON_TYPE;
  return headers;
}

export function timeoutError(
  spec: RequestSpec,
  requestId: string,
  what: string,
  cause?: unknown,
): UpstreamError {
  return new UpstreamError(`${spec.operation}: ${what}`, {
    kind: 'UNAVAILABLE',
    shape: 'timeout',
    retryable: true,
    requestId,
    operation: spec.operation,
    cause,
  });
}

function protocolError(spec: RequestSpec, status: number, requestId: string, what: string): UpstreamError {
  return new UpstreamError(`${spec.operation}: ${what}`, {
    kind: 'PROTOCOL',
    shape: 'unrecognised',
    retryable: false,
    status,
    requestId,
    operation: spec.operation,
  });
}

/** A 2xx body as the result: the envelope's `data` and `meta`, or the bare resource of a bare route. */
export function unwrapAnswer<T>(
  spec: RequestSpec,
  status: number,
  text: string,
  requestId: string,
): UpstreamResult<T> {
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw protocolError(spec, status, requestId, `answered ${status} with a body that is not JSON`);
  }
  if (spec.envelope === 'bare')
    return { data: parsed as T, tracingId: undefined, requestId, status, meta: {} };
  if (typeof parsed !== 'object' || parsed === null || !('data' in parsed)) {
    throw protocolError(spec, status, requestId, `answered ${status} without the data envelope`);
  }
  const envelope = parsed as { data: T; meta?: UpstreamMeta; metadata?: UpstreamMeta; links?: UpstreamLinks };
  const meta = envelope.meta ?? envelope.metadata ?? {};
  return {
    data: envelope.data,
    tracingId: typeof meta.tracingId === 'string' ? meta.tracingId : undefined,
    requestId,
    status,
    meta,
    ...(envelope.links ? { links: envelope.links } : {}),
  };
}

/** How an attempt ended, when it did not end with an answer: which timer fired, if one did. */
export type Expiry = 'queued' | 'sent' | undefined;

/** What a failed attempt throws: an UpstreamError, or the caller's own abort reason. */
export function attemptError(
  spec: RequestSpec,
  error: unknown,
  requestId: string,
  timeoutMs: number,
  expired: Expiry,
  caller: AbortSignal | undefined,
): unknown {
  if (error instanceof UpstreamError) return error;
  if (caller?.aborted) return caller.reason;
  if (error instanceof BodyTooLarge) {
    return new UpstreamError(`${spec.operation}: the answer is larger than the client accepts`, {
      kind: 'PROTOCOL',
      shape: 'unrecognised',
      retryable: false,
      requestId,
      operation: spec.operation,
    });
  }
  if (expired === 'queued') {
    return timeoutError(
      spec,
      requestId,
      `no connection to send on within ${Math.round(timeoutMs)} ms (local load)`,
      Object.assign(new Error('queued too long'), { code: QUEUE_TIMEOUT }),
    );
  }
  if (expired === 'sent') {
    return timeoutError(spec, requestId, `no complete answer within ${Math.round(timeoutMs)} ms`);
  }
  const code = (error as { code?: unknown }).code;
  return new UpstreamError(
    `${spec.operation}: network error${typeof code === 'string' ? ` (${code})` : ''}: ${(error as Error).message}`,
    {
      kind: 'UNAVAILABLE',
      shape: 'network',
      retryable: true,
      requestId,
      operation: spec.operation,
      cause: error,
    },
  );
}

/** A DELETE's retry that finds the resource gone: an earlier attempt deleted it and only its answer was lost. */
export function goneOnRetry<T>(
  spec: RequestSpec,
  error: unknown,
  attempt: number,
  requestId: string,
): UpstreamResult<T> | undefined {
  if (!(error instanceof UpstreamError) || attempt === 1 || spec.method !== 'DELETE') return undefined;
  if (error.status !== 404 || spec.goneOnRetry === undefined) return undefined;
  return { data: spec.goneOnRetry as T, tracingId: error.tracingId, requestId, status: 404, meta: {} };
}

/**
 * What a call's earlier attempts leave on a later attempt's error: how many may have reached the
 * upstream (an unsafe retry must say so), and the last tracing id the upstream gave.
 */
export class AttemptHistory {
  private inDoubt = 0;
  private unanswered = 0;
  private earlierTracingId: string | undefined;

  note(error: unknown): void {
    if (error instanceof UpstreamError) {
      error.attemptsInDoubt = this.inDoubt;
      error.attemptsUnanswered = this.unanswered;
      error.earlierTracingId = this.earlierTracingId;
      this.earlierTracingId = error.tracingId ?? this.earlierTracingId;
    }
    if (mayHaveLanded(error)) {
      this.inDoubt += 1;
      if (!(error instanceof UpstreamError) || error.status === undefined) this.unanswered += 1;
    }
  }
}
