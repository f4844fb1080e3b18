import { randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import { currentRequestId } from '#libs/context';
import type { AppLogger } from '#libs/observability';
import type { UpstreamOperationName } from '#libs/upstream-openapi';
import { UpstreamError } from './upstream.error.js';
import { UpstreamMetrics } from './upstream.metrics.js';
import { UpstreamTransport } from './upstream.transport.js';
import type { ApiVersion, UpstreamPage, UpstreamResult } from './upstream.types.js';
import { type BodyLimits, DEFAULT_BODY_LIMITS } from './upstream-attempt.outcome.js';
import { type BreakerOptions, DEFAULT_BREAKER } from './upstream-breaker.js';
import { offsetPages, type PagingOptions } from './upstream-paging.iterator.js';
import { type CallOptions, type SendOptions } from './upstream-request.js';
import { DEFAULT_RETRY, type RetryOptions } from './upstream-resilience.policy.js';
import { retryFor } from './upstream-retry.rules.js';
import { type CallParts, requestOf } from './upstream-routes.js';

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

function asPage<T>(result: UpstreamResult<T[]>, operation: string): UpstreamPage<T> {
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

/** The client's transport: its options checked, every default filled in, its metrics registered. */
export function transportFor(options: UpstreamClientOptions): UpstreamTransport {
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new RangeError('timeoutMs must be a positive number');
  }
  return new UpstreamTransport({
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
 * What every operation group of {@link UpstreamClient} sends through, shared by all of them so that one
 * client has one connection pool, one set of breakers and one metrics registration: the client's
 * transport (connections, retries by {@link RETRY_RULES}, breakers, metrics), each operation's route
 * (UPSTREAM_ROUTES) and the walk of paged lists.
 */
export class UpstreamClientCore {
  constructor(private readonly transport: UpstreamTransport) {}

  /** Ids an institutions listing gave, which may label metrics (see UpstreamClient.rememberInstitutions). */
  rememberInstitutions(ids: readonly string[]): void {
    this.transport.rememberInstitutions(ids);
  }

  /**
   * Makes one call of `operation` on its route (UPSTREAM_ROUTES), retried as {@link RETRY_RULES} says for
   * it.
   */
  call<T>(operation: UpstreamOperationName, parts: CallParts, options?: SendOptions) {
    const spec = requestOf(operation, parts);
    return this.transport.send<T>({ ...spec, retry: retryFor(operation, spec.body) }, options);
  }

  /** One page of a list route, whose `data` must be an array. */
  page<T>(operation: UpstreamOperationName, parts: CallParts, options?: SendOptions) {
    return this.call<T[]>(operation, parts, options).then((result) => asPage(result, operation));
  }

  /**
   * Every page of an offset-paged list from `query.offset` (upstream spec §4.2.1): `fetchPage` is given
   * each page's query and the walk's options, one base request id for the whole walk.
   */
  offsetPages<T, Q extends { offset?: number; limit?: number }>(
    operation: UpstreamOperationName,
    fetchPage: (query: Q, options: SendOptions) => Promise<UpstreamPage<T>>,
    query: Q,
    options: CallOptions & PagingOptions,
  ) {
    const walk = this.walkOptions(options);
    return offsetPages(
      operation,
      (offset, limit, page) => fetchPage({ ...query, offset, limit }, { ...walk, page }),
      query,
      options,
    );
  }

  /** Paging options with one base request id for the whole walk (pages add `.p<n>`). */
  walkOptions<O extends CallOptions>(options: O): O {
    return { ...options, requestId: options.requestId ?? currentRequestId() ?? randomUUID() };
  }
}
