import { randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import { currentRequestId } from '#libs/context';
import type { AppLogger } from '#libs/observability';
import { UpstreamError } from './upstream.error.js';
import { UpstreamMetrics } from './upstream.metrics.js';
import { UpstreamTransport } from './upstream.transport.js';
import type {
  ApiVersion,
  ConsentsQuery,
  RealTimeTransactionsQuery,
  TransactionsQuery,
  UpstreamPage,
  UpstreamResult,
} from './upstream.types.js';
import type { AttemptObserver } from './upstream-attempt.observer.js';
import { type BreakerOptions, DEFAULT_BREAKER } from './upstream-breaker.js';
import {
  type BodyLimits,
  type CallOptions,
  DEFAULT_BODY_LIMITS,
  type RequestSpec,
  type SendOptions,
} from './upstream-request.js';
import { DEFAULT_RETRY, type RetryOptions } from './upstream-resilience.policy.js';
import { retryFor } from './upstream-retry.rules.js';

export interface UpstreamClientOptions {
  baseUrl: string;
  applicationId: string;
  applicationSecret: string;
  /** `2.0-ALPHA` sends `x-yapily-api-version: 2.0-ALPHA` on every request (upstream spec §9). */
  apiVersion: ApiVersion;
  /**
   * Per attempt, from when the request is sent on a connection: send, headers and the whole body. Waiting
   * for a pooled connection has its own timeout of the same length, which counts against no breaker.
   */
  timeoutMs: number;
  /** Default budget for a whole call, retries included (see `CallOptions.deadlineMs`); none when absent. */
  deadlineMs?: number;
  /** Largest bodies read; a larger one fails with PROTOCOL (default 32 MB for 2xx, 64 KB for errors). */
  bodyLimits?: Partial<BodyLimits>;
  logger?: AppLogger;
  /** Per-operation latency and outcome metrics are registered here. */
  registry?: Registry;
  retry?: Partial<RetryOptions>;
  /** `false` turns the circuit breakers (per institution and service-wide) off. */
  breaker?: Partial<BreakerOptions> | false;
  /** Keep-alive connections to the upstream (default 32). */
  connections?: number;
  /** How long an idle connection is kept (default 30 s; the server's keep-alive hint wins if shorter). */
  keepAliveTimeoutMs?: number;
}

export interface CursorPagingQuery extends RealTimeTransactionsQuery {
  /** A cursor from a previous page's `links`; `from`/`before` only go on the first request. */
  cursor?: string;
}

export function offsetQuery(q: TransactionsQuery, offset = q.offset, limit = q.limit) {
  return {
    from: q.from,
    before: q.before,
    limit,
    sort: q.sort,
    offset,
    ...(q.with?.length ? { with: q.with.join(',') } : {}),
  };
}

export function consentsQuery(q: ConsentsQuery, offset = q.offset, limit = q.limit) {
  return {
    'filter[applicationUserId]': q.applicationUserId,
    'filter[userUuid]': q.userUuid,
    'filter[institution]': q.institution,
    'filter[status]': q.status,
    from: q.from,
    before: q.before,
    limit,
    offset,
  };
}

export function asPage<T>(result: UpstreamResult<T[]>, operation: string): UpstreamPage<T> {
  if (!Array.isArray(result.data)) {
    throw new UpstreamError(`${operation}: a list route answered data that is not an array`, {
      kind: 'PROTOCOL',
      shape: 'unrecognised',
      retryable: false,
      status: result.status,
      tracingId: result.tracingId,
      requestId: result.requestId,
      operation,
    });
  }
  const total = result.meta.pagination?.totalCount;
  return typeof total === 'number' ? { ...result, totalCount: total } : result;
}

/**
 * What every operation of {@link UpstreamClient} is sent through: the transport (connections, retries by
 * {@link RETRY_RULES}, breakers, metrics) and the walk of paged lists. The operations extend it in groups.
 */
export abstract class UpstreamClientBase {
  protected readonly transport: UpstreamTransport;

  constructor(options: UpstreamClientOptions) {
    if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
      throw new RangeError('timeoutMs must be a positive number');
    }
    this.transport = new UpstreamTransport({
      baseUrl: options.baseUrl,
      applicationId: options.applicationId,
      applicationSecret: options.applicationSecret,
      apiVersion: options.apiVersion,
      timeoutMs: options.timeoutMs,
      deadlineMs: options.deadlineMs,
      bodyLimits: { ...DEFAULT_BODY_LIMITS, ...options.bodyLimits },
      connections: options.connections ?? 32,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 30_000,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      breaker: options.breaker === false ? false : { ...DEFAULT_BREAKER, ...options.breaker },
      logger: options.logger,
      metrics: options.registry ? new UpstreamMetrics(options.registry) : undefined,
    });
  }

  /**
   * The state of an institution's circuit breaker, or of the service-wide one for `upstream` (for
   * health pages and tests). An institution without a breaker (none failed lately) is `closed`.
   */
  breakerState(institutionId: string): 'closed' | 'open' | 'halfOpen' {
    return this.transport.breakerState(institutionId);
  }

  /**
   * Institution ids that may label this client's metrics, as ids an institutions listing gave do: those
   * of the institutions cache, which a process that never lists institutions itself reads (else every
   * bank's breaker shows as `other`).
   */
  /** Tells `observer` of every attempt of every call from now on (the upstream call log). */
  observeAttempts(observer: AttemptObserver | undefined): void {
    this.transport.observeAttempts(observer);
  }

  rememberInstitutions(ids: readonly string[]): void {
    this.transport.rememberInstitutions(ids);
  }

  /** Closes the connection pool; in-flight calls finish first. */
  close(): Promise<void> {
    return this.transport.close();
  }

  protected send<T>(
    spec: Omit<RequestSpec, 'retry'> & { retry?: RequestSpec['retry'] },
    options?: SendOptions,
  ) {
    return this.transport.send<T>(
      { ...spec, retry: spec.retry ?? retryFor(spec.operation, spec.body) },
      options,
    );
  }

  /** Paging options with one base request id for the whole walk (pages add `.p<n>`). */
  protected walkOptions<O extends CallOptions>(options: O): O {
    return { ...options, requestId: options.requestId ?? currentRequestId() ?? randomUUID() };
  }
}
