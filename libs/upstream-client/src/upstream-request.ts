import type { UpstreamOperationName } from '#libs/upstream-openapi';
import { UpstreamError } from './upstream.error.js';
import type { PsuHeaders } from './upstream.types.js';
import type { RetryMode } from './upstream-resilience.policy.js';

/*
 * What one upstream request is, as plain functions: its options, its spec, its path, query and headers.
 * How an attempt of it ends is upstream-attempt.outcome.ts; the transport sends it.
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
