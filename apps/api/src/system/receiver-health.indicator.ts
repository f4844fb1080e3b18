import { Injectable } from '@nestjs/common';
import { type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { UpstreamReceiverCheckService } from '#libs/domain/inbox';

/** An object type, not an interface: Terminus takes it as its indicator's open record. */
type ReceiverState = {
  receiver: 'registered' | 'missing' | 'unknown';
  /** With `missing`: the applications holding consents whose receiver the upstream does not list. */
  applicationsWithoutReceiver?: string[];
};

/**
 * Whether the upstream can tell us about the consents we hold: the applications with consents whose
 * receiver the upstream does not list (asked of the upstream itself, so a registration deleted there, or
 * forgotten by a sandbox, shows). Never `down`: a missing registration is the operator's to fix
 * (POST /admin/upstream/webhooks), not a reason to take the api out of a load balancer. Read at most once
 * a minute per process, so probes cost no query and no upstream call; `unknown` when Postgres or the
 * upstream does not answer within a few seconds (asked again after 5 s).
 */
@Injectable()
export class ReceiverHealthIndicator {
  private static readonly CACHE_MS = 60_000;
  /** `unknown` is asked again sooner, yet not on every probe while a dependency is away. */
  private static readonly UNKNOWN_CACHE_MS = 5_000;
  /** A probe waits no longer than this for the upstream; the answer is then `unknown`. */
  private static readonly DEADLINE_MS = 5_000;
  private cached?: { at: number; state: ReceiverState };
  /** The one refresh under way, shared by the probes that arrive meanwhile. */
  private refreshing?: Promise<ReceiverState>;

  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly registrations: UpstreamReceiverCheckService,
  ) {}

  async check(key = 'upstreamWebhooks'): Promise<HealthIndicatorResult> {
    const cached = this.cached;
    const ttl =
      cached?.state.receiver === 'unknown'
        ? ReceiverHealthIndicator.UNKNOWN_CACHE_MS
        : ReceiverHealthIndicator.CACHE_MS;
    const state = cached && Date.now() - cached.at <= ttl ? cached.state : await this.refresh();
    return this.indicators.check(key).up(state);
  }

  private refresh(): Promise<ReceiverState> {
    this.refreshing ??= this.read().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async read(): Promise<ReceiverState> {
    let state: ReceiverState;
    try {
      const missing = await this.registrations.applicationsWithoutReceiver({
        signal: AbortSignal.timeout(ReceiverHealthIndicator.DEADLINE_MS),
      });
      state =
        missing.length === 0
          ? { receiver: 'registered' }
          : { receiver: 'missing', applicationsWithoutReceiver: missing };
    } catch {
      // Postgres or the upstream is away (their own checks say which): this one cannot tell.
      state = { receiver: 'unknown' };
    }
    this.cached = { at: Date.now(), state };
    return state;
  }
}
