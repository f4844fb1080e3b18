import { UpstreamError } from './upstream.error.js';
import { QUEUE_TIMEOUT } from './upstream-resilience.policy.js';

export interface BreakerOptions {
  /** Consecutive failures that open a breaker (see {@link Breakers} for what counts where). */
  consecutiveFailures: number;
  /** How long an open breaker refuses calls before letting one probe call through. */
  halfOpenAfterMs: number;
  /**
   * How many institution breakers are kept at once. Institution ids come from callers, so the map is
   * bounded: a breaker exists only while it has counted failures, and the least recently used one is
   * dropped when the bound is reached (forgetting a few failures is harmless; memory growth is not).
   */
  maxBreakers: number;
  /**
   * Failures of this many different institutions within `spreadWindowMs` open the service-wide breaker:
   * one bank failing is that bank's problem, several at once is the upstream's.
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
type Pass = 'probe' | 'through';

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
 * attributes to the call's institution when it names one. `answered`: an HTTP answer that blames the
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

export interface BreakerEvents {
  onChange(key: string, state: BreakerState): void;
}

/** What an admitted call holds: report its outcome exactly once. */
export interface BreakerTicket {
  done(error: unknown, succeeded: boolean): void;
}

/**
 * Bulkheads: one breaker per institution plus one for the service. A failure of a call that names an
 * institution counts against that institution alone, whatever the upstream's error says of its source
 * (an upstream may blame itself for a bank's fault), so one failing bank is cut off and the others are
 * not. The service-wide breaker opens only on signals that are the service's: `consecutiveFailures`
 * failures of calls that name no institution, the upstream's host unreachable, or failures of
 * `spreadInstitutions` different institutions within `spreadWindowMs`.
 */
export class Breakers {
  private readonly institutions = new Map<string, Breaker>();
  private readonly service: Breaker;
  /** Institution → when it last failed, for the spread rule; pruned to the window as it is read. */
  private readonly recentFailures = new Map<string, number>();
  /**
   * Whether the upstream has answered this process once (any HTTP status). Until then an unreachable
   * upstream is not there yet, as at a cold start where the process comes up before it: it counts
   * against no breaker, so the first calls once it listens are not refused for `halfOpenAfterMs`.
   * Such failures are fast, so calls are not held up meanwhile.
   */
  private answered = false;

  constructor(
    private readonly options: BreakerOptions,
    private readonly events: BreakerEvents,
  ) {
    this.service = new Breaker(options, (state) => {
      if (state === 'open') this.recentFailures.clear();
      events.onChange(SERVICE_BREAKER, state);
    });
  }

  /**
   * Admits a call, waiting behind a half-open breaker's probe for at most `maxWaitMs`, or throws the
   * circuitOpen error. The institution breaker is looked up without creating one: breakers are created
   * on the first failure, so unknown ids cost nothing.
   */
  async admit(
    institutionId: string | undefined,
    operation: string,
    requestId: string,
    maxWaitMs = this.options.maxProbeWaitMs,
  ): Promise<BreakerTicket> {
    const started = Date.now();
    const servicePass = await this.service.admit(maxWaitMs);
    if (!servicePass) throw this.refused(SERVICE_BREAKER, operation, requestId);
    const institution = institutionId === undefined ? undefined : this.institutions.get(institutionId);
    let institutionPass: Pass | false = 'through';
    if (institution && institutionId !== undefined) {
      this.touch(institutionId, institution);
      institutionPass = await institution.admit(maxWaitMs - (Date.now() - started));
      if (!institutionPass) {
        this.service.record('nothing', servicePass);
        throw this.refused(institutionId, operation, requestId);
      }
    }
    let reported = false;
    return {
      done: (error, succeeded) => {
        if (reported) return;
        reported = true;
        this.report(institutionId, succeeded ? 'healthy' : judge(error), servicePass, institutionPass);
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

  private report(
    institutionId: string | undefined,
    verdict: Verdict,
    servicePass: Pass,
    institutionPass: Pass,
  ): void {
    if (verdict === 'healthy' || verdict === 'answered' || verdict === 'failure') this.answered = true;
    const blamesInstitution = verdict === 'failure' && institutionId !== undefined;
    if (verdict === 'healthy' || verdict === 'answered') this.service.record('healthy', servicePass);
    else if (verdict === 'unreachable')
      this.service.record(this.answered ? 'failure' : 'nothing', servicePass);
    else if (verdict === 'failure' && !blamesInstitution) this.service.record('failure', servicePass);
    else if (blamesInstitution && this.spreadReached(institutionId, Date.now())) this.service.trip();
    else this.service.record('nothing', servicePass);

    if (institutionId === undefined) return;
    let breaker = this.institutions.get(institutionId);
    if (!breaker && blamesInstitution) breaker = this.create(institutionId);
    if (!breaker) return;
    breaker.record(
      blamesInstitution ? 'failure' : verdict === 'healthy' ? 'healthy' : 'nothing',
      institutionPass,
    );
    if (breaker.idle) this.institutions.delete(institutionId);
  }

  /** Notes a failure of `institutionId`; whether enough institutions failed within the window. */
  private spreadReached(institutionId: string, now: number): boolean {
    this.recentFailures.delete(institutionId);
    this.recentFailures.set(institutionId, now);
    // Insertion order is failure order: the oldest are first.
    for (const [key, at] of this.recentFailures) {
      if (now - at < this.options.spreadWindowMs && this.recentFailures.size <= this.options.maxBreakers)
        break;
      this.recentFailures.delete(key);
    }
    return this.recentFailures.size >= this.options.spreadInstitutions;
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
