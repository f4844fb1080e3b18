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

export const DEFAULT_RETRY: RetryOptions = {
  maxRetries: 3,
  initialDelayMs: 100,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 10_000,
};

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

/**
 * The attempt may have reached the server and done its work: anything but a local refusal, a request that
 * never left, or an answer that says it was not done (a 4xx, rate limits included).
 */
export function mayHaveLanded(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return true;
  if (error.shape === 'circuitOpen' || neverSent(error)) return false;
  return error.status === undefined || error.status >= 500;
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
