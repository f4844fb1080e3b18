import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  ExponentialBackoff,
  circuitBreaker,
  decorrelatedJitterGenerator,
  handleWhen,
  retry,
  type CircuitBreakerPolicy,
  type IBackoff,
  type IBackoffFactory,
  type IRetryBackoffContext,
  type RetryPolicy,
} from 'cockatiel';
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
  /** Consecutive institution failures (424, 5xx, network, timeout) that open the breaker. */
  consecutiveFailures: number;
  /** How long an open breaker refuses calls before letting one test call through. */
  halfOpenAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxRetries: 3,
  initialDelayMs: 100,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 10_000,
};

export const DEFAULT_BREAKER: BreakerOptions = { consecutiveFailures: 5, halfOpenAfterMs: 30_000 };

/**
 * How a request may be repeated. `safe`: idempotent by method or by an idempotency id, so any retryable
 * failure is retried. `unsent`: not idempotent, so only retried when it provably never reached the
 * server (connection refused); a timeout or a 5xx might mean it ran.
 */
export type RetryMode = 'safe' | 'unsent';

function causeCode(error: UpstreamError): unknown {
  const cause: unknown = error.cause;
  return typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
}

export function shouldRetry(error: unknown, mode: RetryMode, options: RetryOptions): boolean {
  if (!(error instanceof UpstreamError) || error.shape === 'circuitOpen') return false;
  if (mode === 'unsent') return error.shape === 'network' && causeCode(error) === 'ECONNREFUSED';
  if (!error.retryable) return false;
  return error.retryAfterMs === undefined || error.retryAfterMs <= options.maxRetryAfterMs;
}

/** The wait before a retry: the backoff, but never shorter than what the server asked for. */
export function retryDelayMs(backoffMs: number, retryAfterMs: number | undefined): number {
  return retryAfterMs === undefined ? backoffMs : Math.max(backoffMs, retryAfterMs);
}

type RetryContext = IRetryBackoffContext<unknown>;

function retryAfterOf(context: RetryContext): number | undefined {
  const result = context.result;
  return 'error' in result && result.error instanceof UpstreamError ? result.error.retryAfterMs : undefined;
}

function honouringRetryAfter(inner: IBackoff<unknown>, context: RetryContext): IBackoff<RetryContext> {
  return {
    duration: retryDelayMs(inner.duration, retryAfterOf(context)),
    next: (next: RetryContext) => honouringRetryAfter(inner.next(next), next),
  };
}

/** cockatiel's exponential backoff with decorrelated jitter, raised to `Retry-After` when one came. */
class RetryAfterBackoff implements IBackoffFactory<RetryContext> {
  constructor(private readonly inner: ExponentialBackoff<unknown>) {}
  next(context: RetryContext): IBackoff<RetryContext> {
    return honouringRetryAfter(this.inner.next(), context);
  }
}

export interface RetryEvent {
  error: unknown;
  attempt: number;
  delayMs: number;
}

export function createRetryPolicy(
  mode: RetryMode,
  options: RetryOptions,
  onRetry: (event: RetryEvent) => void,
): RetryPolicy | undefined {
  if (options.maxRetries <= 0) return undefined;
  const policy = retry(
    handleWhen((error) => shouldRetry(error, mode, options)),
    {
      maxAttempts: options.maxRetries,
      backoff: new RetryAfterBackoff(
        new ExponentialBackoff({
          generator: decorrelatedJitterGenerator,
          initialDelay: options.initialDelayMs,
          maxDelay: options.maxDelayMs,
        }),
      ),
    },
  );
  policy.onRetry((event) =>
    onRetry({
      error: 'error' in event ? event.error : undefined,
      attempt: event.attempt,
      delayMs: event.delay,
    }),
  );
  return policy;
}

/** Failures that say the institution (or the way to it) is unwell; a caller's 4xx says nothing about it. */
export function countsAgainstInstitution(error: Error): boolean {
  return (
    error instanceof UpstreamError &&
    (error.kind === 'INSTITUTION' || (error.kind === 'UNAVAILABLE' && error.shape !== 'circuitOpen'))
  );
}

export interface BreakerEvents {
  onOpen(institutionId: string): void;
  onHalfOpen(institutionId: string): void;
  onClose(institutionId: string): void;
}

/** One breaker per institution, so a failing bank is cut off without touching the others. */
export class InstitutionBreakers {
  private readonly breakers = new Map<string, CircuitBreakerPolicy>();

  constructor(
    private readonly options: BreakerOptions,
    private readonly events: BreakerEvents,
  ) {}

  /** Runs `fn` through the institution's breaker; an open breaker fails fast with kind UNAVAILABLE. */
  async execute<T>(institutionId: string, operation: string, requestId: string, fn: () => Promise<T>) {
    const breaker = this.breakerFor(institutionId);
    try {
      return await breaker.execute(fn);
    } catch (error) {
      if (!(error instanceof BrokenCircuitError)) throw error;
      throw new UpstreamError(
        `${operation}: the circuit breaker for institution ${institutionId} is open after repeated failures`,
        {
          kind: 'UNAVAILABLE',
          shape: 'circuitOpen',
          retryable: true,
          retryAfterMs: this.options.halfOpenAfterMs,
          operation,
          requestId,
          cause: error,
        },
      );
    }
  }

  state(institutionId: string): 'closed' | 'open' | 'halfOpen' {
    const state = this.breakers.get(institutionId)?.state ?? CircuitState.Closed;
    return state === CircuitState.Closed ? 'closed' : state === CircuitState.HalfOpen ? 'halfOpen' : 'open';
  }

  private breakerFor(institutionId: string): CircuitBreakerPolicy {
    let breaker = this.breakers.get(institutionId);
    if (!breaker) {
      breaker = circuitBreaker(handleWhen(countsAgainstInstitution), {
        halfOpenAfter: this.options.halfOpenAfterMs,
        breaker: new ConsecutiveBreaker(this.options.consecutiveFailures),
      });
      breaker.onBreak(() => this.events.onOpen(institutionId));
      breaker.onHalfOpen(() => this.events.onHalfOpen(institutionId));
      breaker.onReset(() => this.events.onClose(institutionId));
      this.breakers.set(institutionId, breaker);
    }
    return breaker;
  }
}
