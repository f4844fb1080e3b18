import { UpstreamError } from './upstream.error.js';
import {
  Breaker,
  type BreakerOptions,
  type BreakerState,
  judge,
  type Pass,
  SERVICE_BREAKER,
  type Verdict,
} from './upstream-breaker.js';

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
