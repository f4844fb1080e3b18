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
import { DEFAULT_RETRY, type RetryMode, type RetryOptions } from './upstream-resilience.policy.js';

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

/**
 * How each operation may be retried: the one place this is decided (the README lists it).
 * - `safe`: any retryable failure (5xx, 408, 429, retryable 424, network, timeout) is retried.
 * - `unsent`: retried only when the request provably never left (connection refused, or still queued
 *   locally when its time ran out); a timeout or a 5xx might mean it ran, and a repeat would run it twice.
 * - `never`: not even then.
 * - `idempotencyId`: `safe` when the body carries a `paymentIdempotencyId` (the upstream then answers a
 *   repeat with the first payment), else `unsent`.
 * - `replaceOnly`: `safe` when every JSON-patch op is `replace` (sets a fixed value), else `unsent`
 *   (`add` to an array, `remove` or `move` do not repeat harmlessly).
 */
export const RETRY_RULES = {
  initiateAccountRequest: 'unsent', // each call starts a new consent
  reAuthoriseAccount: 'unsent', // each call issues a new authorisation URL
  updatePreAuthoriseAccountConsent: 'safe', // PUT
  initiateEmbeddedAccountRequest: 'unsent',
  // A PUT, but a repeat is not harmless: SCA codes are single-use and three wrong ones fail the consent.
  updateEmbeddedAccountRequest: 'never',
  getConsents: 'safe',
  getConsentById: 'safe',
  deleteConsent: 'safe', // a 404 on a retry counts as done
  // POSTs: the spec promises no idempotency (extending twice, or a second funds check the bank records,
  // is not promised to be harmless), so they follow the POST rule.
  extendConsent: 'unsent',
  getConsentBySingleAccessConsent: 'unsent', // one-time token: single use
  getAccounts: 'safe',
  getAccount: 'safe',
  getAccountBalances: 'safe',
  getTransactions: 'safe',
  getRealTimeTransactions: 'safe',
  getStatements: 'safe',
  getStatement: 'safe',
  getBeneficiaries: 'safe',
  createTransactionsCategorisation: 'unsent',
  getCategorisedTransactions: 'safe',
  createPaymentAuthorisation: 'unsent',
  createPayment: 'idempotencyId',
  getPayments: 'safe',
  createSweepingAuthorisation: 'unsent',
  getSweepingConsentById: 'safe',
  createVrpFundsConfirmation: 'unsent',
  createVrpPayment: 'idempotencyId',
  getVrpPaymentDetails: 'safe',
  addUser: 'unsent', // a repeat would conflict (409)
  getUsers: 'safe',
  getUser: 'safe',
  patchUser: 'replaceOnly',
  deleteUser: 'safe', // a 404 on a retry counts as done
  searchApplications: 'safe',
  getApplicationById: 'safe',
  getInstitutions: 'safe',
  getInstitution: 'safe',
  getAccountConstraintsRulesByInstitution: 'safe',
  getPaymentConstraintsRulesByInstitution: 'safe',
  postHostedCommercialVrpRequest: 'unsent', // each call creates another request
  getHostedVrpRequest: 'safe',
  getCommercialVrpConsentById: 'safe',
  getEventSubscriptions: 'safe',
  deleteEventSubscriptionById: 'safe', // a 404 on a retry counts as done
  getWebhookCategories: 'safe',
  registerWebhook: 'unsent', // each call registers another webhook
  getRegisteredWebhooks: 'safe',
  resetWebhookSecret: 'unsent', // each call issues another secret, and only the last one's answer shows it
  deleteWebhook: 'safe', // a 404 on a retry counts as done
} as const satisfies Record<string, RetryMode | 'never' | 'idempotencyId' | 'replaceOnly'>;

function retryFor(operation: string, body: unknown): RequestSpec['retry'] {
  const rule = (RETRY_RULES as Record<string, (typeof RETRY_RULES)[keyof typeof RETRY_RULES]>)[operation];
  if (rule === undefined) throw new Error(`no retry rule for upstream operation ${operation}`);
  if (rule === 'idempotencyId') {
    const id = (body as { paymentIdempotencyId?: unknown } | undefined)?.paymentIdempotencyId;
    return typeof id === 'string' && id !== '' ? 'safe' : 'unsent';
  }
  if (rule === 'replaceOnly') {
    const ops = Array.isArray(body) ? (body as { op?: unknown }[]) : [];
    return ops.length > 0 && ops.every((o) => o.op === 'replace') ? 'safe' : 'unsent';
  }
  return rule;
}
