import { Injectable } from '@nestjs/common';
import { type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { UpstreamWebhookRegistrationService } from '#libs/domain/inbox';

/**
 * Whether the upstream can tell us about the consents we hold: the applications with consents and no
 * current registration of our receiver. Never `down`: a missing registration is the operator's to fix
 * (POST /admin/upstream/webhooks), not a reason to take the api out of a load balancer. Read at most once
 * a minute per process, so probes cost no query.
 */
@Injectable()
export class ReceiverHealthIndicator {
  private static readonly CACHE_MS = 60_000;
  private cached?: { at: number; missing: string[] };

  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly registrations: UpstreamWebhookRegistrationService,
  ) {}

  async check(key = 'upstreamWebhooks'): Promise<HealthIndicatorResult> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > ReceiverHealthIndicator.CACHE_MS) {
      try {
        this.cached = { at: now, missing: await this.registrations.applicationsWithoutReceiver() };
      } catch {
        // Postgres is away: its own check says so; this one cannot tell, and asks again next time.
        return this.indicators.check(key).up({ receiver: 'unknown' });
      }
    }
    const { missing } = this.cached;
    return this.indicators.check(key).up({
      receiver: missing.length === 0 ? 'registered' : 'missing',
      ...(missing.length > 0 ? { applicationsWithoutReceiver: missing } : {}),
    });
  }
}
