import { Inject, Injectable } from '@nestjs/common';
import { type HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { APP_CONFIG, type AppConfig } from '#libs/config';

/**
 * Readiness of the upstream: reachability only. Any HTTP answer below 500 means it is there; calling an
 * authenticated endpoint on every probe would spend the operator's upstream quota. The result is cached
 * briefly so a busy load balancer does not turn probes into upstream traffic.
 */
@Injectable()
export class UpstreamHealthIndicator {
  private static readonly CACHE_MS = 5_000;
  private static readonly TIMEOUT_MS = 2_000;
  private cached?: { at: number; up: boolean; detail: string };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly indicators: HealthIndicatorService,
  ) {}

  async check(key = 'upstream'): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(key);
    const now = Date.now();
    if (!this.cached || now - this.cached.at > UpstreamHealthIndicator.CACHE_MS) {
      this.cached = { at: now, ...(await this.probe()) };
    }
    return this.cached.up
      ? indicator.up({ detail: this.cached.detail })
      : indicator.down({ detail: this.cached.detail });
  }

  private async probe(): Promise<{ up: boolean; detail: string }> {
    try {
      const response = await fetch(`${this.config.upstream.baseUrl}/`, {
        method: 'GET',
        signal: AbortSignal.timeout(UpstreamHealthIndicator.TIMEOUT_MS),
      });
      await response.body?.cancel();
      return { up: response.status < 500, detail: `HTTP ${response.status}` };
    } catch (error) {
      return { up: false, detail: (error as Error).name === 'TimeoutError' ? 'timeout' : 'unreachable' };
    }
  }
}
