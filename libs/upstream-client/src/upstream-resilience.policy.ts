import { decorrelatedJitterGenerator, ExponentialBackoff, type IBackoff } from 'cockatiel';
import { UpstreamError } from './upstream.error.js';

export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /** First backoff delay; later ones grow exponentially with decorrelated jitter. */
  initialDelayMs: number;
  maxDelayMs: number;
  /**
   * The longest `Retry-After` the client waits out itself. A longer one fails the call at once with
   * `retryAfterMs` set, so a job can be rescheduled instead of holding a worker.
   */
  maxRetryAfterMs: number;
}

export interface BreakerOptions {
  /** Consecutive failures (see {@link judge}) that open a breaker. */
  consecutiveFailures: number;
  /** How long an open breaker refuses calls before letting one test call through. */
  halfOpenAfterMs: number;
  /**
   * How many institution breakers are kept at once. Institution ids come from callers, so the map is
   * bounded: a breaker exists only while it has counted failures, and the least recently used one is
   * dropped when the bound is reached (forgetting a few failures is harmless; memory growth is not).
   */
  maxBreakers: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxRetries: 3,
  initialDelayMs: 100,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 10_000,
};

export const DEFAULT_BREAKER: BreakerOptions = {
  consecutiveFailures: 5,
  halfOpenAfterMs: 30_000,
  maxBreakers: 1000,
};

/** The key of the one service-wide breaker (the upstream itself, whatever the institution). */
export const SERVICE_BREAKER = 'upstream';

/**
 * How a request may be repeated. `safe`: idempotent by method or by an idempotency id, so any retryable
 * failure is retried. `unsent`: not idempotent, so only retried when it provably never reached the
 * server (connection refused, or still queued locally when its time ran out); a timeout or a 5xx might
 * mean it ran.
 */
export type RetryMode = 'safe' | 'unsent';

/** The cause code of a request that timed out while still waiting for a pooled connection. */
export const QUEUE_TIMEOUT = 'UPSTREAM_QUEUE_TIMEOUT';

function causeCode(error: UpstreamError): unknown {
  const cause: unknown = error.cause;
  return typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
}

/** The request never left this process (or never got past the TCP handshake). */
export function neverSent(error: UpstreamError): boolean {
  const code = causeCode(error);
  return (error.shape === 'network' && code === 'ECONNREFUSED') || code === QUEUE_TIMEOUT;
}

export function shouldRetry(error: unknown, mode: RetryMode, options: RetryOptions): boolean {
  if (!(error instanceof UpstreamError) || error.shape === 'circuitOpen') return false;
  if (mode === 'unsent') return neverSent(error);
  if (!error.retryable) return false;
  return error.retryAfterMs === undefined || error.retryAfterMs <= options.maxRetryAfterMs;
}

/** The wait before a retry: the backoff, but never shorter than what the server asked for. */
export function retryDelayMs(backoffMs: number, retryAfterMs: number | undefined): number {
  return retryAfterMs === undefined ? backoffMs : Math.max(backoffMs, retryAfterMs);
}

/** cockatiel's exponential backoff with decorrelated jitter, one delay per retry. */
export class RetryBackoff {
  private current: IBackoff<unknown>;

  constructor(options: RetryOptions) {
    this.current = new ExponentialBackoff({
      generator: decorrelatedJitterGenerator,
      initialDelay: options.initialDelayMs,
      maxDelay: options.maxDelayMs,
    }).next();
  }

  nextMs(): number {
    this.current = this.current.next(undefined);
    return this.current.duration;
  }
}

/**
 * Whom an outcome says something about. `institution`: the bank (or the upstream's link to it) is
 * unwell: 424, a 5xx the upstream attributes to the institution, 502/503/504, or a timeout after the
 * request went out. `service`: the upstream itself: its own 500s and network failures on the way to it.
 * `healthy`: a 2xx. `nothing`: everything else (a caller's 4xx, an expired consent, an abort, 501/505
 * which are our request's fault, a timeout while still queued locally, a bug in our code) proves
 * nothing either way, so it neither counts as a failure nor closes a half-open breaker.
 */
export type Verdict = 'institution' | 'service' | 'healthy' | 'nothing';

export function judge(error: unknown): Verdict {
  if (!(error instanceof UpstreamError)) return 'nothing';
  if (error.shape === 'circuitOpen') return 'nothing';
  if (error.shape === 'timeout') return causeCode(error) === QUEUE_TIMEOUT ? 'nothing' : 'institution';
  if (error.shape === 'network') return 'service';
  const status = error.status;
  if (status === undefined) return 'nothing';
  if (status === 424) return 'institution';
  if (status === 502 || status === 503 || status === 504) return 'institution';
  if (status === 501 || status === 505) return 'nothing';
  if (status >= 500) return error.source === 'INSTITUTION' ? 'institution' : 'service';
  return 'nothing';
}

/** Failures that say the institution (or the way to it) is unwell; a caller's 4xx says nothing about it. */
export function countsAgainstInstitution(error: unknown): boolean {
  return judge(error) === 'institution';
}

export type BreakerState = 'closed' | 'open' | 'halfOpen';

/**
 * A consecutive-failures breaker with a third outcome: `nothing` neither counts as a failure nor, in
 * half-open, closes the breaker (cockatiel's breaker counts every non-failure as success, so a caller's
 * 400 would close it). One test call at a time in half-open.
 */
export class Breaker {
  state: BreakerState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private testing = false;

  constructor(
    private readonly options: BreakerOptions,
    private readonly onChange: (state: BreakerState) => void,
  ) {}

  /** Whether a call may go through now; in half-open, only the one test call. */
  admit(): boolean {
    if (this.state === 'open') {
      if (Date.now() - this.openedAt < this.options.halfOpenAfterMs) return false;
      this.transition('halfOpen');
    }
    if (this.state === 'halfOpen') {
      if (this.testing) return false;
      this.testing = true;
    }
    return true;
  }

  /** Records the outcome of an admitted call. */
  record(outcome: 'failure' | 'healthy' | 'nothing'): void {
    const wasTest = this.state === 'halfOpen' && this.testing;
    if (wasTest) this.testing = false;
    if (outcome === 'nothing') return;
    if (outcome === 'healthy') {
      this.failures = 0;
      if (this.state !== 'closed') this.transition('closed');
      return;
    }
    this.failures += 1;
    if (wasTest || (this.state === 'closed' && this.failures >= this.options.consecutiveFailures)) {
      this.openedAt = Date.now();
      this.transition('open');
    }
  }

  /**
   * The state a metric shows: `open` only while calls are refused. Past `halfOpenAfterMs` the next call
   * is the test call, so an institution nobody calls any more does not look cut off for ever.
   */
  shownState(now: number): BreakerState {
    return this.state === 'open' && now - this.openedAt >= this.options.halfOpenAfterMs
      ? 'halfOpen'
      : this.state;
  }

  /** Closed with nothing counted: safe to forget. */
  get idle(): boolean {
    return this.state === 'closed' && this.failures === 0;
  }

  private transition(state: BreakerState): void {
    this.state = state;
    this.onChange(state);
  }
}

export interface BreakerEvents {
  onChange(key: string, state: BreakerState): void;
}

/** What an admitted call holds: report its outcome exactly once. */
export interface BreakerTicket {
  done(error: unknown, succeeded: boolean): void;
}

/**
 * One breaker per institution plus one for the service, so a failing bank is cut off without touching
 * the others, and an unwell upstream is cut off whatever the institution (or when there is none).
 */
export class Breakers {
  private readonly institutions = new Map<string, Breaker>();
  private readonly service: Breaker;
  /**
   * Whether the upstream has answered this process once (any HTTP status). Until then a network failure
   * (refused, unresolvable, reset) says the upstream is not there yet, as at a cold start where the
   * process comes up before it: it counts against no breaker, so the first calls once it listens are
   * not refused for `halfOpenAfterMs`. Such failures are fast, so calls are not held up meanwhile.
   */
  private answered = false;

  constructor(
    private readonly options: BreakerOptions,
    private readonly events: BreakerEvents,
  ) {
    this.service = new Breaker(options, (state) => events.onChange(SERVICE_BREAKER, state));
  }

  /**
   * Admits a call or throws the circuitOpen error. The institution breaker is looked up without
   * creating one: breakers are created on the first failure, so unknown ids cost nothing.
   */
  admit(institutionId: string | undefined, operation: string, requestId: string): BreakerTicket {
    if (!this.service.admit()) throw this.refused(SERVICE_BREAKER, operation, requestId);
    const institution = institutionId === undefined ? undefined : this.institutions.get(institutionId);
    if (institution && !institution.admit()) {
      this.service.record('nothing');
      throw this.refused(institutionId!, operation, requestId);
    }
    if (institution && institutionId !== undefined) this.touch(institutionId, institution);
    let reported = false;
    return {
      done: (error, succeeded) => {
        if (reported) return;
        reported = true;
        if (succeeded || (error instanceof UpstreamError && error.status !== undefined)) this.answered = true;
        const judged = succeeded ? 'healthy' : judge(error);
        const notThereYet =
          !this.answered && judged === 'service' && (error as UpstreamError).shape === 'network';
        const verdict = notThereYet ? 'nothing' : judged;
        const againstInstitution = verdict === 'institution' && institutionId !== undefined;
        this.service.record(
          verdict === 'healthy'
            ? 'healthy'
            : verdict === 'service' || (verdict === 'institution' && !againstInstitution)
              ? 'failure'
              : 'nothing',
        );
        if (institutionId === undefined) return;
        let breaker = this.institutions.get(institutionId);
        if (!breaker && againstInstitution) breaker = this.create(institutionId);
        if (!breaker) return;
        breaker.record(againstInstitution ? 'failure' : verdict === 'healthy' ? 'healthy' : 'nothing');
        if (breaker.idle) this.institutions.delete(institutionId);
      },
    };
  }

  state(key: string): BreakerState {
    if (key === SERVICE_BREAKER) return this.service.state;
    return this.institutions.get(key)?.state ?? 'closed';
  }

  /**
   * Every breaker that is not closed, as metrics show it (see {@link Breaker.shownState}): the
   * service-wide one under `upstream`, then the institutions' (at most `maxBreakers`, so a scrape's walk
   * is bounded).
   */
  *unwell(now = Date.now()): Generator<[string, BreakerState]> {
    const service = this.service.shownState(now);
    if (service !== 'closed') yield [SERVICE_BREAKER, service];
    for (const [key, breaker] of this.institutions) {
      const state = breaker.shownState(now);
      if (state !== 'closed') yield [key, state];
    }
  }

  /** How many institution breakers are held (for tests of the bound). */
  get size(): number {
    return this.institutions.size;
  }

  private create(institutionId: string): Breaker {
    if (this.institutions.size >= this.options.maxBreakers) {
      // Map order is insertion order and touch() re-inserts: the first key is the least recently used.
      const oldest = this.institutions.keys().next().value;
      if (oldest !== undefined) this.institutions.delete(oldest);
    }
    const breaker = new Breaker(this.options, (state) => this.events.onChange(institutionId, state));
    this.institutions.set(institutionId, breaker);
    return breaker;
  }

  private touch(institutionId: string, breaker: Breaker): void {
    this.institutions.delete(institutionId);
    this.institutions.set(institutionId, breaker);
  }

  private refused(key: string, operation: string, requestId: string): UpstreamError {
    const what = key === SERVICE_BREAKER ? 'the upstream service' : `institution ${key}`;
    return new UpstreamError(
      `${operation}: the circuit breaker for ${what} is open after repeated failures`,
      {
        kind: 'UNAVAILABLE',
        shape: 'circuitOpen',
        retryable: true,
        retryAfterMs: this.options.halfOpenAfterMs,
        operation,
        requestId,
      },
    );
  }
}
