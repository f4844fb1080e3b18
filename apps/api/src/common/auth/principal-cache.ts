import { hash } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { Caller } from '#libs/context';
import { CredentialRevocations, type Revocation } from '#libs/redis';

interface Entry {
  principal: Caller;
  expiresAt: number;
}

/** Bounds memory whatever the traffic: the oldest entries go first. */
const MAX_ENTRIES = 50_000;

/**
 * Verified credentials, cached in this process for `tuning.authCacheSeconds` so an authenticated request costs
 * no database round trip. Keyed by a hash of the token (the token itself is not kept). Revocations
 * (a revoked key, an erased user, a disabled merchant, a console sign-out) published by any process evict at once; the TTL
 * bounds what a revocation lost while Redis was away could leave behind.
 */
@Injectable()
export class PrincipalCache implements OnApplicationBootstrap {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly revocations: CredentialRevocations,
  ) {
    this.ttlMs = config.tuning.authCacheSeconds * 1000;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.ttlMs > 0) await this.revocations.subscribe((revocation) => this.evict(revocation));
  }

  /**
   * The cached principal of a token, or verifies it with `verify` and caches the answer, never past the
   * credential's own `validUntil` (ms since the epoch), when it has one.
   */
  async resolve(
    token: string,
    verify: () => Promise<{ principal: Caller; validUntil?: number }>,
  ): Promise<Caller> {
    if (this.ttlMs === 0) return (await verify()).principal;
    // One-shot: no Hash object per request.
    const key = hash('sha256', token, 'base64url');
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.principal;
    if (hit) this.entries.delete(key);
    const { principal, validUntil } = await verify();
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { principal, expiresAt: Math.min(now + this.ttlMs, validUntil ?? Infinity) });
    return principal;
  }

  private evict(revocation: Revocation): void {
    for (const [key, { principal }] of this.entries) {
      if (revocation.kind === 'consoleSession') {
        if (principal.kind !== 'user-session' && principal.consoleSessionId === revocation.id)
          this.entries.delete(key);
        continue;
      }
      if (principal.kind === 'operator') continue;
      const matches =
        (revocation.kind === 'apiKey' &&
          principal.kind === 'merchant' &&
          principal.apiKeyId === revocation.id) ||
        (revocation.kind === 'user' && principal.userId === revocation.id) ||
        (revocation.kind === 'merchant' && principal.merchantId === revocation.id);
      if (matches) this.entries.delete(key);
    }
  }
}
