import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as wait } from 'node:timers/promises';
import { type Dispatcher, Pool } from 'undici';
import { currentRequestId } from '#libs/context';
import { Breakers, merchantOf } from './upstream.breakers.js';
import { UpstreamError } from './upstream.error.js';
import type { UpstreamMetrics } from './upstream.metrics.js';
import type { UpstreamResult } from './upstream.types.js';
import { type AttemptObserver, failedAttempt, watchAttempt } from './upstream-attempt.observer.js';
import {
  attemptError,
  AttemptHistory,
  type BodyLimits,
  goneOnRetry,
  timeoutError,
  unwrapAnswer,
} from './upstream-attempt.outcome.js';
import { AttemptTimer, dispatchNotifier } from './upstream-attempt.timer.js';
import { BodyTooLarge, readCapped } from './upstream-body.reader.js';
import { type BreakerOptions, type BreakerState } from './upstream-breaker.js';
import type { UpstreamClientOptions } from './upstream-client.core.js';
import { upstreamErrorFromResponse } from './upstream-error.parser.js';
import { InstitutionLabels, rateLimitSource } from './upstream-institution.labels.js';
import {
  callerError,
  type Credentials,
  queryString,
  requestHeaders,
  type RequestSpec,
  type SendOptions,
} from './upstream-request.js';
import { RetryBackoff, retryDelayMs, type RetryOptions, shouldRetry } from './upstream-resilience.policy.js';

/** The client's options as UpstreamClientCore resolves them: every default filled in, its metrics made. */
export interface TransportOptions extends Pick<
  UpstreamClientOptions,
  'baseUrl' | 'applicationId' | 'applicationSecret' | 'apiVersion' | 'timeoutMs' | 'deadlineMs' | 'logger'
> {
  connections: number;
  keepAliveTimeoutMs: number;
  retry: RetryOptions;
  breaker: BreakerOptions | false;
  bodyLimits: BodyLimits;
  metrics?: UpstreamMetrics;
}

/**
 * HTTP to the upstream: one keep-alive undici pool, headers built in one place, the envelope unwrapped,
 * errors parsed, and every call through a retry loop whose attempts pass the circuit breakers. Kept
 * whole: the loop's parts are the upstream-*.ts modules it imports; what is left is the loop.
 */
export class UpstreamTransport {
  private readonly pool: Pool;
  private readonly dispatcher: Dispatcher;
  private readonly basePath: string;
  private readonly credentials: Credentials;
  private readonly breakers: Breakers | undefined;
  private readonly labels = new InstitutionLabels();
  private readonly stopReportingBreakers: () => void;
  private observer: AttemptObserver | undefined;

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
    this.credentials = {
      authorization: `Basic ${Buffer.from(`${options.applicationId}:${options.applicationSecret}`).toString('base64')}`,
      apiVersion: options.apiVersion,
    };
    this.breakers =
      options.breaker === false
        ? undefined
        : new Breakers(options.breaker, {
            onChange: (key, state) => {
              options.metrics?.breaker(this.labels.of(key), state);
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
      if (state !== 'closed') yield [this.labels.of(key), state];
    }
  }

  /** The state of an institution's breaker, or of the service-wide one for `upstream`. */
  breakerState(key: string): BreakerState {
    return this.breakers?.state(key) ?? 'closed';
  }

  /** Institution ids seen in a successful listing may label metrics; all others are `other`. */
  rememberInstitutions(ids: readonly string[]): void {
    this.labels.remember(ids);
  }

  /** Tells `observer` of every attempt from now on (the upstream call log); one observer at a time. */
  observeAttempts(observer: AttemptObserver | undefined): void {
    this.observer = observer;
  }

  /** A 429, from the upstream itself or from the bank through a 424, counted against the call's institution. */
  private countRateLimit(error: UpstreamError, institutionId: string | undefined): void {
    const source = rateLimitSource(error);
    if (source)
      this.options.metrics?.rateLimited(
        institutionId === undefined ? 'none' : this.labels.of(institutionId),
        source,
      );
  }

  async send<T>(spec: RequestSpec, options: SendOptions = {}): Promise<UpstreamResult<T>> {
    const baseId = options.requestId ?? currentRequestId() ?? randomUUID();
    const signal = options.signal;
    if (spec.consent === 'required' && !options.consent) {
      throw callerError(spec.operation, 'a consent token is required and must not be empty');
    }
    const { path, body, institutionId, route, started, deadlineAt } = this.prepare(spec, options);
    const backoff = new RetryBackoff(this.options.retry);
    const pagePart = options.page !== undefined && options.page > 1 ? `.p${options.page}` : '';
    const finish = (outcome: string) =>
      this.options.metrics?.observe(spec.operation, outcome, (performance.now() - started) / 1000);

    const history = new AttemptHistory();
    for (let attempt = 1; ; attempt += 1) {
      const requestId = `${baseId}${pagePart}${attempt > 1 ? `.a${attempt}` : ''}`;
      const observe = await watchAttempt(this.observer, spec.operation, institutionId, attempt);
      let ticket;
      try {
        if (signal?.aborted) throw signal.reason;
        const remaining = deadlineAt - performance.now();
        if (remaining <= 0) throw timeoutError(spec, requestId, 'the call deadline passed');
        ticket = await this.breakers?.admit({ ...route, requestId }, remaining);
        const headers = requestHeaders(spec, options, requestId, this.credentials);
        const result = await this.attempt<T>(spec, path, headers, body, requestId, options, remaining);
        ticket?.done(undefined, true);
        await observe({ status: result.status, errorKind: undefined, tracingId: result.tracingId });
        finish('success');
        return result;
      } catch (error) {
        ticket?.done(error, false);
        await observe(failedAttempt(error));
        if (signal?.aborted) {
          finish('aborted');
          throw signal.reason;
        }
        const gone = goneOnRetry<T>(spec, error, attempt, requestId);
        if (gone) {
          finish('success');
          return gone;
        }
        history.note(error);
        const delayMs = this.retryDelay(spec, error, attempt, backoff, deadlineAt);
        if (delayMs === undefined) {
          finish(error instanceof UpstreamError ? error.kind : 'error');
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

  /** A call's path, body, institution and deadline, from its spec and options. */
  private prepare(spec: RequestSpec, options: SendOptions) {
    const deadlineMs = options.deadlineMs ?? this.options.deadlineMs;
    const started = performance.now();
    const institutionId = options.institutionId ?? spec.institutionId;
    return {
      path: `${this.basePath}${spec.path}${queryString(spec.query)}`,
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
      institutionId,
      route: { institutionId, merchant: merchantOf(options.subApplication), operation: spec.operation },
      started,
      deadlineAt: deadlineMs === undefined ? Infinity : started + deadlineMs,
    };
  }

  /** How long to wait before the next attempt; undefined when the failure is final or the deadline too near. */
  private retryDelay(
    spec: RequestSpec,
    error: unknown,
    attempt: number,
    backoff: RetryBackoff,
    deadlineAt: number,
  ): number | undefined {
    const mode = spec.retry === 'never' ? undefined : spec.retry;
    if (!mode || attempt > this.options.retry.maxRetries || !shouldRetry(error, mode, this.options.retry)) {
      return undefined;
    }
    const delayMs = retryDelayMs(backoff.nextMs(), (error as UpstreamError).retryAfterMs);
    return performance.now() + delayMs >= deadlineAt ? undefined : delayMs;
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

  private async attempt<T>(
    spec: RequestSpec,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    requestId: string,
    options: SendOptions,
    remainingMs: number,
  ): Promise<UpstreamResult<T>> {
    const timeoutMs = Math.min(options.timeoutMs ?? this.options.timeoutMs, remainingMs);
    const timer = new AttemptTimer(timeoutMs, remainingMs, options.signal);
    const attemptOutcome = (outcome: string) =>
      this.options.metrics?.observeAttempt(spec.operation, outcome, timer.elapsedMs() / 1000);
    try {
      const response = await this.dispatcher.request({
        method: spec.method,
        path,
        headers,
        body,
        signal: timer.signal,
      });
      const result = await this.answerOf<T>(spec, response, requestId, options);
      attemptOutcome('success');
      return result;
    } catch (error) {
      const failure = attemptError(spec, error, requestId, timeoutMs, timer.expired, options.signal);
      attemptOutcome(failure instanceof UpstreamError ? failure.kind : 'aborted');
      throw failure;
    } finally {
      timer.dispose();
    }
  }

  /** A response's body, read within its cap: a 2xx's result, else the error it describes, thrown. */
  private async answerOf<T>(
    spec: RequestSpec,
    response: Dispatcher.ResponseData,
    requestId: string,
    options: SendOptions,
  ): Promise<UpstreamResult<T>> {
    const status = response.statusCode;
    const ok = status >= 200 && status < 300;
    const cap = ok ? this.options.bodyLimits.successBytes : this.options.bodyLimits.errorBytes;
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > cap) {
      response.body.destroy();
      throw new BodyTooLarge();
    }
    const text = await readCapped(response.body, cap);
    if (ok) return unwrapAnswer<T>(spec, status, text, requestId);
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
  }
}
