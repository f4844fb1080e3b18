import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import CustomStrategy from 'passport-custom';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { type Caller, type OperatorCaller, type SessionCaller, tenantOf } from '#libs/context';
import { SESSION_TOKEN_PREFIX, UserRepository, verifySessionToken } from '#libs/domain/users';
import { merchantDisabled } from '#libs/errors';
import { bearerToken } from './bearer.js';
import { MerchantKeyVerifier, refused } from './merchant-key.verifier.js';
import { PrincipalCache } from './principal-cache.js';

export const STRATEGY = {
  operator: 'bff-operator',
  merchant: 'bff-merchant-key',
  userSession: 'bff-user-session',
} as const;

type HeaderRequest = { headers: Record<string, string | string[] | undefined> };

export function sameSecret(given: string, expected: string): boolean {
  // Hashing first gives equal lengths, so the comparison time says nothing about the expected length.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** `Authorization: Bearer <ADMIN_TOKEN>`: the platform operator. */
@Injectable()
export class OperatorStrategy extends PassportStrategy(CustomStrategy, STRATEGY.operator) {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    super();
  }

  validate(request: HeaderRequest): OperatorCaller {
    const token = bearerToken(request.headers);
    if (!token || !sameSecret(token, this.config.api.adminToken)) throw refused();
    return { kind: 'operator' };
  }
}

/** `Authorization: Bearer mk_…`: a merchant backend's API key. */
@Injectable()
export class MerchantApiKeyStrategy extends PassportStrategy(CustomStrategy, STRATEGY.merchant) {
  constructor(
    private readonly keys: MerchantKeyVerifier,
    private readonly cache: PrincipalCache,
  ) {
    super();
  }

  validate(request: HeaderRequest): Promise<Caller> {
    const token = bearerToken(request.headers);
    if (!token?.startsWith('mk_') || token.length > 256) throw refused();
    return this.cache.resolve(token, () => this.keys.verifyKey(token));
  }
}

/** `Authorization: Bearer us_…`: a merchant frontend acting for one user. */
@Injectable()
export class UserSessionStrategy extends PassportStrategy(CustomStrategy, STRATEGY.userSession) {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly users: UserRepository,
    private readonly cache: PrincipalCache,
  ) {
    super();
  }

  validate(request: HeaderRequest): Promise<Caller> {
    const token = bearerToken(request.headers);
    const claims = token?.startsWith(SESSION_TOKEN_PREFIX)
      ? verifySessionToken(this.config.crypto.signingSecret, token)
      : null;
    if (!token || !claims) throw refused();
    // The signature proves who minted it, not that the user still exists: an erased user's token must
    // die (the cache is told at once when a user is erased). The signature and expiry are checked above
    // on every request, so a cached session never outlives its token.
    return this.cache.resolve(token, async () => {
      const principal: SessionCaller = {
        kind: 'user-session',
        merchantId: claims.merchantId,
        userId: claims.userId,
        validUntil: claims.expiresAt * 1000,
      };
      const user = await this.users.findForSession(tenantOf(principal), claims.userId);
      if (!user) throw refused();
      if (user.merchant.disabledAt !== null) throw merchantDisabled();
      return { principal, validUntil: claims.expiresAt * 1000 };
    });
  }
}
