import { currentContext } from '#libs/context';
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

/** What a breaker needs to know of a call: the bank it reaches, else whose it is and what it does. */
export interface BreakerCall {
  institutionId?: string;
  /** The merchant the call is made for (its id, or its sub-application); none for the BFF's own calls. */
  merchant?: string;
  operation: string;
  requestId: string;
}

/** What an admitted call holds: report its outcome exactly once. */
export interface BreakerTicket {
  done(error: unknown, succeeded: boolean): void;
}

/**
 * Whom a call is made for, for its breaker: the merchant the running request acts for or the job works
 * for, else the sub-application it names (undefined for the BFF's own calls, such as an institutions
 * refresh).
 */
export function merchantOf(subApplication: string | undefined): string | undefined {
  const context = currentContext();
  const caller = context?.caller;
  const merchantId =
    context?.subject?.merchantId ?? (caller && 'merchantId' in caller ? caller.merchantId : undefined);
  if (merchantId !== undefined) return merchantId;
  return subApplication === undefined ? undefined : `sub-application ${subApplication}`;
}

/**
 * The breaker a call counts against, and the source its failures count as for the spread rule. A call
 * naming a bank counts against the bank: a bank down is down for every merchant. One naming none counts
 * against its merchant's operation (`merchant:<id>/<operation>`), as one merchant's failing user
 * creations may be that merchant's (its sub-application, its data) and must not refuse another's calls;
 * all of a merchant's operations count as one source, so one merchant alone never trips the service.
 */
export function breakerKey(call: Pick<BreakerCall, 'institutionId' | 'merchant' | 'operation'>): {
  key: string;
  source: string;
} {
  if (call.institutionId !== undefined) return { key: call.institutionId, source: call.institutionId };
  const source = `merchant:${call.merchant ?? 'none'}`;
  return { key: `${source}/${call.operation}`, source };
}

/**
 * Bulkheads: one breaker per institution, one per merchant and operation for calls naming no
 * institution, and one for the service. A failure of a call that names an institution counts against
 * that institution alone, whatever the upstream's error says of its source (an upstream may blame itself
 * for a bank's fault), so one failing bank is cut off and the others are not; a failure of one naming
 * none counts against its merchant's operation alone. The service-wide breaker opens only on signals
 * that are the service's: the upstream's host unreachable, or failures of `spreadInstitutions` different
 * sources (banks, merchants) within `spreadWindowMs`, none of which succeeded since.
 */
export class Breakers {
  /** Institution and merchant-operation breakers, least recently used first. */
  private readonly keyed = new Map<string, Breaker>();
  private readonly service: Breaker;
  /** Source → when it last failed, for the spread rule; pruned to the window as it is read. */
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
   * circuitOpen error. The call's own breaker is looked up without creating one: breakers are created
   * on the first failure, so unknown ids cost nothing.
   */
  async admit(call: BreakerCall, maxWaitMs = this.options.maxProbeWaitMs): Promise<BreakerTicket> {
    const started = Date.now();
    const { key, source } = breakerKey(call);
    const servicePass = await this.service.admit(maxWaitMs);
    if (!servicePass) throw this.refused(SERVICE_BREAKER, call);
    const breaker = this.keyed.get(key);
    let pass: Pass | false = 'through';
    if (breaker) {
      this.touch(key, breaker);
      pass = await breaker.admit(maxWaitMs - (Date.now() - started));
      if (!pass) {
        this.service.record('nothing', servicePass);
        throw this.refused(key, call);
      }
    }
    let reported = false;
    return {
      done: (error, succeeded) => {
        if (reported) return;
        reported = true;
        this.report(key, source, succeeded ? 'healthy' : judge(error), servicePass, pass || 'through');
      },
    };
  }

  state(key: string): BreakerState {
    if (key === SERVICE_BREAKER) return this.service.state;
    return this.keyed.get(key)?.state ?? 'closed';
  }

  /**
   * Every breaker that is not closed, as metrics show it (see {@link Breaker.shownState}): the
   * service-wide one under `upstream`, then the others (at most `maxBreakers`, so a scrape's walk is
   * bounded).
   */
  *unwell(now = Date.now()): Generator<[string, BreakerState]> {
    const service = this.service.shownState(now);
    if (service !== 'closed') yield [SERVICE_BREAKER, service];
    for (const [key, breaker] of this.keyed) {
      const state = breaker.shownState(now);
      if (state !== 'closed') yield [key, state];
    }
  }

  /** How many institution and merchant-operation breakers are held (for tests of the bound). */
  get size(): number {
    return this.keyed.size;
  }

  private report(key: string, source: string, verdict: Verdict, servicePass: Pass, pass: Pass): void {
    if (verdict === 'healthy' || verdict === 'answered' || verdict === 'failure') this.answered = true;
    if (verdict === 'healthy') this.recentFailures.delete(source);
    if (verdict === 'healthy' || verdict === 'answered') this.service.record('healthy', servicePass);
    else if (verdict === 'unreachable')
      this.service.record(this.answered ? 'failure' : 'nothing', servicePass);
    else if (verdict === 'failure' && this.spreadReached(source, Date.now())) this.service.trip();
    else this.service.record('nothing', servicePass);

    let breaker = this.keyed.get(key);
    if (!breaker && verdict === 'failure') breaker = this.create(key);
    if (!breaker) return;
    breaker.record(verdict === 'failure' ? 'failure' : verdict === 'healthy' ? 'healthy' : 'nothing', pass);
    if (breaker.idle) this.keyed.delete(key);
  }

  /** Notes a failure of `source`; whether enough sources failed within the window. */
  private spreadReached(source: string, now: number): boolean {
    this.recentFailures.delete(source);
    this.recentFailures.set(source, now);
    // Insertion order is failure order: the oldest are first.
    for (const [key, at] of this.recentFailures) {
      if (now - at < this.options.spreadWindowMs && this.recentFailures.size <= this.options.maxBreakers)
        break;
      this.recentFailures.delete(key);
    }
    return this.recentFailures.size >= this.options.spreadInstitutions;
  }

  private create(key: string): Breaker {
    if (this.keyed.size >= this.options.maxBreakers) {
      // Map order is insertion order and touch() re-inserts: the first key is the least recently used.
      const oldest = this.keyed.keys().next().value;
      if (oldest !== undefined) this.keyed.delete(oldest);
    }
    const breaker = new Breaker(this.options, (state) => this.events.onChange(key, state));
    this.keyed.set(key, breaker);
    return breaker;
  }

  private touch(key: string, breaker: Breaker): void {
    this.keyed.delete(key);
    this.keyed.set(key, breaker);
  }

  private refused(key: string, call: BreakerCall): UpstreamError {
    const what =
      key === SERVICE_BREAKER
        ? 'the upstream service'
        : call.institutionId !== undefined
          ? `institution ${key}`
          : `this merchant's ${call.operation} calls`;
    return new UpstreamError(
      `${call.operation}: the circuit breaker for ${what} is open after repeated failures`,
      {
        kind: 'UNAVAILABLE',
        shape: 'circuitOpen',
        retryable: true,
        retryAfterMs: this.options.halfOpenAfterMs,
        operation: call.operation,
        requestId: call.requestId,
      },
    );
  }
}
