import { Inject, Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { type AppLogger, LOGGER } from '#libs/observability';
import { IdempotencyRepository } from './idempotency.repository.js';

export interface HeldClaim {
  merchantId: MerchantId;
  key: string;
  lockedAt: Date;
}

/**
 * The idempotency claims this process holds for requests still running, each as it was taken. One
 * instance per process (Nest makes an interceptor per module that uses it; this is what they share).
 */
@Injectable()
export class HeldIdempotencyClaims {
  private readonly claims = new Set<HeldClaim>();

  constructor(
    private readonly keys: IdempotencyRepository,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  add(claim: HeldClaim): void {
    this.claims.add(claim);
  }

  has(claim: HeldClaim): boolean {
    return this.claims.has(claim);
  }

  delete(claim: HeldClaim): void {
    this.claims.delete(claim);
  }

  /**
   * Releases every claim still held, as the process stops (api-process.ts, once the server has closed):
   * a request cut by the shutdown is retried by its client at once, on another process, and must not
   * meet "in progress" until the claim goes stale. A handler still running here finds its claim gone and
   * stores nothing (`complete` writes only the claim it took). A process that dies without stopping
   * leaves its claims to go stale (STALE_LOCK_MS).
   */
  async releaseAll(): Promise<number> {
    const claims = [...this.claims];
    this.claims.clear();
    for (const claim of claims) {
      try {
        await this.keys.release(claim.merchantId, claim.key, claim.lockedAt);
      } catch (err) {
        // Postgres away as the process stops: the claim goes stale instead, as a crashed process's does.
        this.logger.warn({ err }, 'idempotency claim not released at shutdown; it goes stale instead');
      }
    }
    return claims.length;
  }
}
