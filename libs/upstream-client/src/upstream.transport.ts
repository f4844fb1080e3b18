import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as wait } from 'node:timers/promises';
import { type Dispatcher, Pool } from 'undici';
import { currentRequestId } from '#libs/context';
import type { AppLogger } from '#libs/observability';
import type { UpstreamOperationName } from '#libs/upstream-openapi';
import { type BreakerOptions, Breakers, type BreakerState, SERVICE_BREAKER } from './upstream.breakers.js';
import { UpstreamError } from './upstream.error.js';
import type { UpstreamMetrics } from './upstream.metrics.js';
import type {
  ApiVersion,
  PsuHeaders,
  UpstreamLinks,
  UpstreamMeta,
  UpstreamResult,
} from './upstream.types.js';
import { BodyTooLarge, readCapped } from './upstream-body.reader.js';
import { upstreamErrorFromResponse } from './upstream-error.parser.js';
import {
  mayHaveLanded,
  QUEUE_TIMEOUT,
  RetryBackoff,
  retryDelayMs,
  type RetryMode,
  type RetryOptions,
  shouldRetry,
} from './upstream-resilience.policy.js';

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

export interface TransportOptions {
  baseUrl: string;
  applicationId: string;
  applicationSecret: string;
  apiVersion: ApiVersion;
  timeoutMs: number;
  deadlineMs?: number;
  connections: number;
  keepAliveTimeoutMs: number;
  retry: RetryOptions;
  breaker: BreakerOptions | false;
  bodyLimits: BodyLimits;
  logger?: AppLogger;
  metrics?: UpstreamMetrics;
}

function callerError(operation: string, message: string): UpstreamError {
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

/** Institution ids that may become a metric label once seen in a successful institutions listing. */
const SAFE_LABEL = /^[A-Za-z0-9._-]{1,64}$/;
const MAX_LABELS = 500;

/**
 * Calls dispatched on a connection, by their abort signal: undici tells a handler when its request is
 * written to a socket (`onRequestStart`), which is when the attempt's own timeout should start; time
 * spent queued for a pooled connection is local load, not the institution's slowness.
 */
const onDispatched = new WeakMap<AbortSignal, () => void>();

function dispatchNotifier(dispatch: Dispatcher['dispatch']): Dispatcher['dispatch'] {
  return (opts, handler) => {
    const signal = (opts as { signal?: unknown }).signal as AbortSignal | undefined;
    const notify = signal ? onDispatched.get(signal) : undefined;
    if (!notify) return dispatch(opts, handler);
    const inner = handler;
    const wrapped: Dispatcher.DispatchHandler = {
      onRequestStart: (controller, context) => {
        notify();
        inner.onRequestStart?.(controller, context);
      },
      onRequestUpgrade: (...args) => inner.onRequestUpgrade?.(...args),
      onResponseStart: (...args) => inner.onResponseStart?.(...args),
      onResponseData: (...args) => inner.onResponseData?.(...args),
      onResponseEnd: (...args) => inner.onResponseEnd?.(...args),
      onResponseError: (...args) => inner.onResponseError?.(...args),
    };
    return dispatch(opts, wrapped);
  };
}

/** The bank's own HTTP status, when a 424 relays it. */
function bankStatus(error: UpstreamError): number | undefined {
  return (
    error.institutionError?.httpStatusCode ??
    error.issues.find((issue) => issue.institutionError?.httpStatusCode)?.institutionError?.httpStatusCode
  );
}

/**
 * HTTP to the upstream: one keep-alive undici pool, headers built in one place, the envelope unwrapped,
 * errors parsed, and every call through a retry loop whose attempts pass the circuit breakers.
 */
export class UpstreamTransport {
  private readonly pool: Pool;
  private readonly dispatcher: Dispatcher;
  private readonly basePath: string;
  private readonly authorization: string;
  private readonly breakers: Breakers | undefined;
  private readonly knownInstitutions = new Set<string>();
  private readonly stopReportingBreakers: () => void;

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
    this.dispatcher = this.pool.compose(dispatchNotifier);
    this.authorization = `Basic ${Buffer.from(`${options.applicationId}:${options.applicationSecret}`).toString('base64')}`;
    this.breakers =
      options.breaker === false
        ? undefined
        : new Breakers(options.breaker, {
            onChange: (key, state) => {
              options.metrics?.breaker(this.labelOf(key), state);
              const log = state === 'open' ? 'warn' : 'info';
              options.logger?.[log]({ institution: key, state }, `upstream circuit breaker ${state}`);
            },
          });
    const breakers = this.breakers;
    this.stopReportingBreakers =
      options.metrics && breakers
        ? options.metrics.reportBreakers(() => this.labelledBreakers(breakers))
        : () => undefined;
  }

  /** The breakers a scrape shows, under their metric labels (`other` may stand for several). */
  private *labelledBreakers(breakers: Breakers): Generator<[string, 'open' | 'halfOpen']> {
    for (const [key, state] of breakers.unwell()) {
      if (state !== 'closed') yield [this.labelOf(key), state];
    }
  }

  /** The state of an institution's breaker, or of the service-wide one for `upstream`. */
  breakerState(key: string): BreakerState {
    return this.breakers?.state(key) ?? 'closed';
  }

  /** Institution ids seen in a successful listing may label metrics; all others are `other`. */
  rememberInstitutions(ids: readonly string[]): void {
    for (const id of ids) {
      if (this.knownInstitutions.size >= MAX_LABELS) break;
      if (SAFE_LABEL.test(id)) this.knownInstitutions.add(id);
    }
  }

  /** A 429, from the upstream itself or from the bank through a 424, counted against the call's institution. */
  private countRateLimit(error: UpstreamError, institutionId: string | undefined): void {
    const source =
      error.status === 429
        ? 'upstream'
        : error.status === 424 && bankStatus(error) === 429
          ? 'institution'
          : undefined;
    if (!source) return;
    this.options.metrics?.rateLimited(
      institutionId === undefined ? 'none' : this.labelOf(institutionId),
      source,
    );
  }

  private labelOf(key: string): string {
    return key === SERVICE_BREAKER || this.knownInstitutions.has(key) ? key : 'other';
  }

  async send<T>(spec: RequestSpec, options: SendOptions = {}): Promise<UpstreamResult<T>> {
    const baseId = options.requestId ?? currentRequestId() ?? randomUUID();
    const signal = options.signal;
    if (spec.consent === 'required' && !options.consent) {
      throw callerError(spec.operation, 'a consent token is required and must not be empty');
    }
    const path = `${this.basePath}${spec.path}${queryString(spec.query)}`;
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const institutionId = options.institutionId ?? spec.institutionId;
    const deadlineMs = options.deadlineMs ?? this.options.deadlineMs;
    const started = performance.now();
    const deadlineAt = deadlineMs === undefined ? Infinity : started + deadlineMs;
    const maxRetries = spec.retry === 'never' ? 0 : this.options.retry.maxRetries;
    const backoff = new RetryBackoff(this.options.retry);
    const pagePart = options.page !== undefined && options.page > 1 ? `.p${options.page}` : '';
    const finish = (outcome: string) =>
      this.options.metrics?.observe(spec.operation, outcome, (performance.now() - started) / 1000);

    let inDoubt = 0;
    let earlierTracingId: string | undefined;
    for (let attempt = 1; ; attempt += 1) {
      const requestId = `${baseId}${pagePart}${attempt > 1 ? `.a${attempt}` : ''}`;
      let ticket;
      try {
        if (signal?.aborted) throw signal.reason;
        const remaining = deadlineAt - performance.now();
        if (remaining <= 0) throw this.timeout(spec, requestId, 'the call deadline passed');
        ticket = await this.breakers?.admit(institutionId, spec.operation, requestId, remaining);
        const headers = this.headersFor(spec, options, requestId);
        const result = await this.attempt<T>(spec, path, headers, body, requestId, options, remaining);
        ticket?.done(undefined, true);
        finish('success');
        return result;
      } catch (error) {
        ticket?.done(error, false);
        if (signal?.aborted) {
          finish('aborted');
          throw signal.reason;
        }
        if (
          error instanceof UpstreamError &&
          attempt > 1 &&
          spec.method === 'DELETE' &&
          error.status === 404 &&
          spec.goneOnRetry !== undefined
        ) {
          // The retry found it gone: an earlier attempt deleted it and only its answer was lost.
          finish('success');
          return {
            data: spec.goneOnRetry as T,
            tracingId: error.tracingId,
            requestId,
            status: 404,
            meta: {},
          };
        }
        if (error instanceof UpstreamError) {
          error.attemptsInDoubt = inDoubt;
          error.earlierTracingId = earlierTracingId;
          earlierTracingId = error.tracingId ?? earlierTracingId;
        }
        if (mayHaveLanded(error)) inDoubt += 1;
        const mode = spec.retry === 'never' ? undefined : spec.retry;
        if (!mode || attempt > maxRetries || !shouldRetry(error, mode, this.options.retry)) {
          finish(error instanceof UpstreamError ? error.kind : 'error');
          throw error;
        }
        const delayMs = retryDelayMs(backoff.nextMs(), (error as UpstreamError).retryAfterMs);
        if (performance.now() + delayMs >= deadlineAt) {
          finish((error as UpstreamError).kind);
          throw error;
        }
        this.onRetry(error as UpstreamError, attempt, delayMs);
        try {
          // Unlike cockatiel's retry wait, this one ends the moment the caller aborts.
          await wait(delayMs, undefined, { signal });
        } catch {
          finish('aborted');
          throw signal?.reason;
        }
      }
    }
  }

  async close(): Promise<void> {
    this.stopReportingBreakers();
    await this.pool.close();
  }

  private onRetry(error: UpstreamError, attempt: number, delayMs: number): void {
    if (error.operation) this.options.metrics?.retried(error.operation);
    this.options.logger?.warn(
      {
        operation: error.operation,
        attempt,
        delayMs: Math.round(delayMs),
        kind: error.kind,
        status: error.status,
        tracingId: error.tracingId,
        requestId: error.requestId,
      },
      'upstream call failed; retrying',
    );
  }

  private headersFor(spec: RequestSpec, options: SendOptions, requestId: string): Record<string, string> {
    const headers: Record<string, string> = {
      authorization: this.authorization,
      accept: 'application/json',
      'x-request-id': requestId,
    };
    if (this.options.apiVersion === '2.0-ALPHA') headers['x-yapily-api-version'] = '2.0-ALPHA';
    // Only routes that take a consent get one: options objects are not checked for extra members.
    if (spec.consent === 'required' && options.consent) headers.consent = options.consent;
    if (options.subApplication !== undefined) headers['sub-application'] = options.subApplication;
    if (options.psu?.id !== undefined) headers['psu-id'] = options.psu.id;
    if (options.psu?.corporateId !== undefined) headers['psu-corporate-id'] = options.psu.corporateId;
    if (options.psu?.ipAddress !== undefined) headers['psu-ip-address'] = options.psu.ipAddress;
    if (spec.body !== undefined) headers['content-type'] = spec.contentType ?? JSON_TYPE;
    return headers;
  }

  private timeout(spec: RequestSpec, requestId: string, what: string, cause?: unknown): UpstreamError {
    return new UpstreamError(`${spec.operation}: ${what}`, {
      kind: 'UNAVAILABLE',
      shape: 'timeout',
      retryable: true,
      requestId,
      operation: spec.operation,
      cause,
    });
  }

  private async attempt<T>(
    spec: RequestSpec,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    requestId: string,
    options: SendOptions,
    remainingMs: number,
  ): Promise<UpstreamResult<T>> {
    const caller = options.signal;
    const timeoutMs = Math.min(options.timeoutMs ?? this.options.timeoutMs, remainingMs);
    const controller = new AbortController();
    const started = performance.now();
    let expired: 'queued' | 'sent' | undefined;
    // Waiting for a pooled connection gets its own timeout of the same length (capped by the deadline);
    // the attempt's timeout starts only once the request is on a connection.
    let timer = setTimeout(() => {
      expired = 'queued';
      controller.abort();
    }, timeoutMs);
    onDispatched.set(controller.signal, () => {
      clearTimeout(timer);
      const left = Math.min(timeoutMs, remainingMs - (performance.now() - started));
      timer = setTimeout(
        () => {
          expired = 'sent';
          controller.abort();
        },
        Math.max(0, left),
      );
    });
    const onAbort = () => controller.abort(caller?.reason);
    caller?.addEventListener('abort', onAbort, { once: true });
    const attemptOutcome = (outcome: string) =>
      this.options.metrics?.observeAttempt(spec.operation, outcome, (performance.now() - started) / 1000);
    try {
      const response = await this.dispatcher.request({
        method: spec.method,
        path,
        headers,
        body,
        signal: controller.signal,
      });
      const status = response.statusCode;
      const ok = status >= 200 && status < 300;
      const cap = ok ? this.options.bodyLimits.successBytes : this.options.bodyLimits.errorBytes;
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > cap) {
        response.body.destroy();
        throw new BodyTooLarge();
      }
      const text = await readCapped(response.body, cap);
      if (ok) {
        const result = this.unwrap<T>(spec, status, text, requestId);
        attemptOutcome('success');
        return result;
      }
      const failure = upstreamErrorFromResponse({
        status,
        body: text,
        retryAfter: response.headers['retry-after'],
        requestId,
        operation: spec.operation,
        consentCall: spec.consent === 'required',
      });
      this.countRateLimit(failure, options.institutionId ?? spec.institutionId);
      throw failure;
    } catch (error) {
      const failure = this.attemptError(spec, error, requestId, timeoutMs, expired, caller);
      attemptOutcome(failure instanceof UpstreamError ? failure.kind : 'aborted');
      throw failure;
    } finally {
      clearTimeout(timer);
      onDispatched.delete(controller.signal);
      caller?.removeEventListener('abort', onAbort);
    }
  }

  private attemptError(
    spec: RequestSpec,
    error: unknown,
    requestId: string,
    timeoutMs: number,
    expired: 'queued' | 'sent' | undefined,
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
      return this.timeout(
        spec,
        requestId,
        `no connection to send on within ${Math.round(timeoutMs)} ms (local load)`,
        Object.assign(new Error('queued too long'), { code: QUEUE_TIMEOUT }),
      );
    }
    if (expired === 'sent') {
      return this.timeout(spec, requestId, `no complete answer within ${Math.round(timeoutMs)} ms`);
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
