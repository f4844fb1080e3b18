/* One circuit breaker and how a call's outcome counts for it; upstream.breakers.ts holds the set of them. */
import { UpstreamError } from './upstream.error.js';
import { QUEUE_TIMEOUT } from './upstream-resilience.policy.js';

export interface BreakerOptions {
  /** Consecutive failures that open a breaker (see {@link Breakers} for what counts where). */
  consecutiveFailures: number;
  /** How long an open breaker refuses calls before letting one probe call through. */
  halfOpenAfterMs: number;
  /**
   * How many institution and merchant-operation breakers are kept at once. Their keys come from callers, so the map is
   * bounded: a breaker exists only while it has counted failures, and the least recently used one is
   * dropped when the bound is reached (forgetting a few failures is harmless; memory growth is not).
   */
  maxBreakers: number;
  /**
   * Failures of this many different sources (institutions, or merchants for calls naming none) within
   * `spreadWindowMs` open the service-wide breaker: one bank or merchant failing is its own problem,
   * several at once is the upstream's.
   */
  spreadInstitutions: number;
  spreadWindowMs: number;
  /** The longest a call waits behind a half-open breaker's probe before it is refused. */
  maxProbeWaitMs: number;
}

export const DEFAULT_BREAKER: BreakerOptions = {
  consecutiveFailures: 5,
  halfOpenAfterMs: 30_000,
  maxBreakers: 1000,
  spreadInstitutions: 3,
  spreadWindowMs: 30_000,
  maxProbeWaitMs: 30_000,
};

/** The key of the one service-wide breaker (the upstream itself, whatever the institution). */
export const SERVICE_BREAKER = 'upstream';

export type BreakerState = 'closed' | 'open' | 'halfOpen';

/** An admitted call: the half-open breaker's probe, or one let through. */
export type Pass = 'probe' | 'through';

/** Socket codes that say the upstream could not be reached at all, whichever bank the call was for. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function causeCode(error: UpstreamError): unknown {
  const cause: unknown = error.cause;
  return typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
}

/**
 * What an outcome says. `unreachable`: the upstream's host did not take the connection, whatever the
 * bank. `failure`: the call reached the upstream and failed in a way that says something is unwell (a
 * 5xx, 424, a timeout after the request went out, a connection cut mid-exchange), which the caller
 * attributes to the call's institution, or its merchant's operation. `answered`: an HTTP answer that blames the
 * request (a 4xx): the upstream is up, but it says nothing about the bank. `nothing`: an abort, a
 * timeout while still queued locally, 501/505 (our request's fault), a bug of ours.
 */
export type Verdict = 'healthy' | 'unreachable' | 'failure' | 'answered' | 'nothing';

export function judge(error: unknown): Verdict {
  if (!(error instanceof UpstreamError)) return 'nothing';
  if (error.shape === 'circuitOpen') return 'nothing';
  if (error.shape === 'timeout') return causeCode(error) === QUEUE_TIMEOUT ? 'nothing' : 'failure';
  if (error.shape === 'network')
    return UNREACHABLE.has(causeCode(error) as string) ? 'unreachable' : 'failure';
  const status = error.status;
  if (status === undefined) return 'nothing';
  if (status === 501 || status === 505) return 'nothing';
  if (status >= 500 || status === 424 || status === 408) return 'failure';
  // The upstream's own rate limit is neither health nor failure: the limiter handles it.
  if (status === 429) return 'nothing';
  return 'answered';
}

/**
 * A consecutive-failures breaker whose half-open state lets one probe call through and holds the calls
 * that arrive meanwhile until the probe answers: a healthy probe lets them all through, a failed one
 * refuses them, an inconclusive one (a 404) hands the probe to the next in line. Outcomes that prove
 * nothing neither count as failures nor close it (cockatiel's breaker counts every non-failure as a
 * success, so a caller's 400 would close it).
 */
export class Breaker {
  state: BreakerState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private readonly waiting: ((pass: Pass | false) => void)[] = [];

  constructor(
    private readonly options: BreakerOptions,
    private readonly onChange: (state: BreakerState) => void,
  ) {}

  /**
   * Whether a call may go through: at once when closed or open, after the probe's answer (at most
   * `maxWaitMs`) when half-open and another call is probing.
   */
  admit(maxWaitMs: number): Pass | false | Promise<Pass | false> {
    if (this.state === 'open') {
      if (Date.now() - this.openedAt < this.options.halfOpenAfterMs) return false;
      this.transition('halfOpen');
    }
    if (this.state === 'closed') return 'through';
    if (!this.probing) {
      this.probing = true;
      return 'probe';
    }
    return new Promise((resolve) => {
      const waiter = (pass: Pass | false) => {
        clearTimeout(timer);
        resolve(pass);
      };
      const timer = setTimeout(
        () => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          resolve(false);
        },
        Math.max(0, Math.min(maxWaitMs, this.options.maxProbeWaitMs)),
      );
      timer.unref();
      this.waiting.push(waiter);
    });
  }

  /** Records the outcome of an admitted call; `pass` is what admit() gave it. */
  record(outcome: 'failure' | 'healthy' | 'nothing', pass: Pass): void {
    const probe = pass === 'probe' && this.state === 'halfOpen';
    if (probe) this.probing = false;
    if (outcome === 'healthy') {
      this.failures = 0;
      if (this.state !== 'closed') this.transition('closed');
      this.release('through');
      return;
    }
    if (outcome === 'failure' && probe) return this.open();
    // A call let through before the breaker opened proves nothing about it now.
    if (outcome === 'failure' && this.state === 'closed') {
      this.failures += 1;
      if (this.failures >= this.options.consecutiveFailures) this.open();
      return;
    }
    // An inconclusive probe: the next call in line probes instead.
    if (probe) this.handOverProbe();
  }

  /** Opens at once: a service-wide outage seen across institutions. */
  trip(): void {
    if (this.state !== 'open') this.open();
  }

  /**
   * The state a metric shows: `open` only while calls are refused. Past `halfOpenAfterMs` the next call
   * is the probe, so an institution nobody calls any more does not look cut off for ever.
   */
  shownState(now: number): BreakerState {
    return this.state === 'open' && now - this.openedAt >= this.options.halfOpenAfterMs
      ? 'halfOpen'
      : this.state;
  }

  /** Closed with nothing counted and nobody waiting: safe to forget. */
  get idle(): boolean {
    return this.state === 'closed' && this.failures === 0 && this.waiting.length === 0;
  }

  private open(): void {
    this.openedAt = Date.now();
    this.probing = false;
    this.transition('open');
    this.release(false);
  }

  private handOverProbe(): void {
    const next = this.waiting.shift();
    if (!next) return;
    this.probing = true;
    next('probe');
  }

  private release(pass: Pass | false): void {
    for (const waiter of this.waiting.splice(0)) waiter(pass);
  }

  private transition(state: BreakerState): void {
    this.state = state;
    this.onChange(state);
  }
}
