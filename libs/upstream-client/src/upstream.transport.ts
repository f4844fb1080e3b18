import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AppLogger } from '#libs/observability';
import { Pool } from 'undici';
import type { RetryPolicy } from 'cockatiel';
import { UpstreamError, upstreamErrorFromResponse } from './upstream.error.js';
import type { UpstreamMetrics } from './upstream.metrics.js';
import {
  createRetryPolicy,
  InstitutionBreakers,
  type BreakerOptions,
  type RetryMode,
  type RetryOptions,
} from './upstream-resilience.policy.js';
import type {
  ApiVersion,
  PsuHeaders,
  UpstreamLinks,
  UpstreamMeta,
  UpstreamResult,
} from './upstream.types.js';

/** Per-call options every operation accepts. */
export interface CallOptions {
  /** `sub-application`: act for this sub-application (a merchant). */
  subApplication?: string;
  /** `psu-id`, `psu-corporate-id`, `psu-ip-address`, where the institution requires them. */
  psu?: PsuHeaders;
  /**
   * The institution the call reaches, which selects its circuit breaker. Operations whose body names
   * the institution use that; for consent-token calls pass it here (the BFF stores it with the consent).
   */
  institutionId?: string;
  /** Sent as `x-request-id`; a fresh UUID when absent. Pass the inbound request's id to correlate. */
  requestId?: string;
  /** Aborts the call, including waits between retries; the abort reason is rethrown as is. */
  signal?: AbortSignal;
  /** Overrides the per-attempt timeout. */
  timeoutMs?: number;
}

/** Options of calls that need the user's consent token (the `consent` header). */
export interface ConsentCallOptions extends CallOptions {
  /** The consent token. Sent only as the `consent` header; never logged, never put in an error. */
  consent: string;
}

type QueryValue = string | number | boolean | undefined | readonly (string | number)[];

export interface RequestSpec {
  /** The spec's operation name; the metrics label and what errors and logs say. */
  operation: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path with every dynamic segment already encoded (use {@link segment}). */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  contentType?: string;
  /** `bare`: the route answers the resource itself, not the `{ meta, data }` envelope. */
  envelope?: 'bare';
  retry: RetryMode | 'never';
  institutionId?: string;
}

export interface TransportOptions {
  baseUrl: string;
  applicationId: string;
  applicationSecret: string;
  apiVersion: ApiVersion;
  timeoutMs: number;
  connections: number;
  keepAliveTimeoutMs: number;
  retry: RetryOptions;
  breaker: BreakerOptions | false;
  logger?: AppLogger;
  metrics?: UpstreamMetrics;
}

/** Encodes one path segment; ids come from users and banks, so they must never change the path. */
export function segment(value: string): string {
  if (value === '') throw new TypeError('an id in an upstream path must not be empty');
  return encodeURIComponent(value);
}

function queryString(query: Record<string, QueryValue> | undefined): string {
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

/**
 * HTTP to the upstream: one keep-alive undici pool, headers built in one place, the envelope unwrapped,
 * errors parsed, and every call through timeout → circuit breaker → retry.
 */
export class UpstreamTransport {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly authorization: string;
  private readonly retries: Record<RetryMode, RetryPolicy | undefined>;
  private readonly breakers: InstitutionBreakers | undefined;

  constructor(private readonly options: TransportOptions) {
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: options.connections,
      keepAliveTimeout: options.keepAliveTimeoutMs,
      connect: { timeout: Math.min(options.timeoutMs, 10_000) },
      // The per-attempt timeout below bounds the whole exchange; undici's own would fire separately.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    this.authorization = `Basic ${Buffer.from(`${options.applicationId}:${options.applicationSecret}`).toString('base64')}`;
    const onRetry = ({ error, attempt, delayMs }: { error: unknown; attempt: number; delayMs: number }) => {
      const e = error instanceof UpstreamError ? error : undefined;
      if (e?.operation) options.metrics?.retried(e.operation);
      options.logger?.warn(
        {
          operation: e?.operation,
          attempt,
          delayMs: Math.round(delayMs),
          kind: e?.kind,
          status: e?.status,
          tracingId: e?.tracingId,
          requestId: e?.requestId,
        },
        'upstream call failed; retrying',
      );
    };
    this.retries = {
      safe: createRetryPolicy('safe', options.retry, onRetry),
      unsent: createRetryPolicy('unsent', options.retry, onRetry),
    };
    this.breakers =
      options.breaker === false
        ? undefined
        : new InstitutionBreakers(options.breaker, {
            onOpen: (institution) => {
              options.metrics?.breaker(institution, 'open');
              options.logger?.warn({ institution }, 'upstream circuit breaker opened');
            },
            onHalfOpen: (institution) => {
              options.metrics?.breaker(institution, 'halfOpen');
              options.logger?.info({ institution }, 'upstream circuit breaker half-open: testing');
            },
            onClose: (institution) => {
              options.metrics?.breaker(institution, 'closed');
              options.logger?.info({ institution }, 'upstream circuit breaker closed');
            },
          });
  }

  breakerState(institutionId: string): 'closed' | 'open' | 'halfOpen' {
    return this.breakers?.state(institutionId) ?? 'closed';
  }

  async send<T>(
    spec: RequestSpec,
    options: CallOptions & { consent?: string } = {},
  ): Promise<UpstreamResult<T>> {
    const requestId = options.requestId ?? randomUUID();
    const headers = this.headersFor(spec, options, requestId);
    const path = `${this.basePath}${spec.path}${queryString(spec.query)}`;
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const attempt = () => this.attempt<T>(spec, path, headers, body, requestId, options);
    const institutionId = options.institutionId ?? spec.institutionId;
    const breakers = this.breakers;
    const guarded =
      institutionId && breakers
        ? () => breakers.execute(institutionId, spec.operation, requestId, attempt)
        : attempt;
    const policy = spec.retry === 'never' ? undefined : this.retries[spec.retry];
    const started = performance.now();
    try {
      const result = policy ? await policy.execute(guarded, options.signal) : await guarded();
      this.options.metrics?.observe(spec.operation, 'success', (performance.now() - started) / 1000);
      return result;
    } catch (error) {
      const outcome = error instanceof UpstreamError ? error.kind : 'aborted';
      this.options.metrics?.observe(spec.operation, outcome, (performance.now() - started) / 1000);
      // cockatiel reports an abort during a backoff wait as its own error; the caller's reason is clearer.
      if (options.signal?.aborted && !(error instanceof UpstreamError)) throw options.signal.reason;
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private headersFor(
    spec: RequestSpec,
    options: CallOptions & { consent?: string },
    requestId: string,
  ): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: this.authorization,
      accept: 'application/json',
      'x-request-id': requestId,
    };
    if (this.options.apiVersion === '2.0-ALPHA') headers['x-yapily-api-version'] = '2.0-ALPHA';
    if (options.consent !== undefined) headers.consent = options.consent;
    if (options.subApplication !== undefined) headers['sub-application'] = options.subApplication;
    if (options.psu?.id !== undefined) headers['psu-id'] = options.psu.id;
    if (options.psu?.corporateId !== undefined) headers['psu-corporate-id'] = options.psu.corporateId;
    if (options.psu?.ipAddress !== undefined) headers['psu-ip-address'] = options.psu.ipAddress;
    if (spec.body !== undefined) headers['content-type'] = spec.contentType ?? JSON_TYPE;
    return headers;
  }

  private async attempt<T>(
    spec: RequestSpec,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    requestId: string,
    options: CallOptions,
  ): Promise<UpstreamResult<T>> {
    const caller = options.signal;
    if (caller?.aborted) throw caller.reason;
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(caller?.reason);
    caller?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.pool.request({
        method: spec.method,
        path,
        headers,
        body,
        signal: controller.signal,
      });
      const text = await response.body.text();
      const status = response.statusCode;
      if (status >= 200 && status < 300) return this.unwrap<T>(spec, status, text, requestId);
      throw upstreamErrorFromResponse({
        status,
        body: text,
        retryAfter: response.headers['retry-after'],
        requestId,
        operation: spec.operation,
      });
    } catch (error) {
      if (error instanceof UpstreamError) throw error;
      if (caller?.aborted) throw caller.reason;
      if (timedOut) {
        throw new UpstreamError(`${spec.operation}: no complete answer within ${timeoutMs} ms`, {
          kind: 'UNAVAILABLE',
          shape: 'timeout',
          retryable: true,
          requestId,
          operation: spec.operation,
        });
      }
      const code = (error as { code?: unknown }).code;
      throw new UpstreamError(
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
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    }
  }

  private unwrap<T>(spec: RequestSpec, status: number, text: string, requestId: string): UpstreamResult<T> {
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw this.protocol(spec, status, requestId, `answered ${status} with a body that is not JSON`);
    }
    if (spec.envelope === 'bare')
      return { data: parsed as T, tracingId: undefined, requestId, status, meta: {} };
    if (typeof parsed !== 'object' || parsed === null || !('data' in parsed)) {
      throw this.protocol(spec, status, requestId, `answered ${status} without the data envelope`);
    }
    const envelope = parsed as {
      data: T;
      meta?: UpstreamMeta;
      metadata?: UpstreamMeta;
      links?: UpstreamLinks;
    };
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

  private protocol(spec: RequestSpec, status: number, requestId: string, what: string): UpstreamError {
    return new UpstreamError(`${spec.operation}: ${what}`, {
      kind: 'PROTOCOL',
      shape: 'unrecognised',
      retryable: false,
      status,
      requestId,
      operation: spec.operation,
    });
  }
}
