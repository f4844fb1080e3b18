import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import CustomStrategy from 'passport-custom';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import {
  type Caller,
  type MerchantCaller,
  type OperatorCaller,
  type SessionCaller,
  tenantOf,
} from '#libs/context';
import { apiKeyPrefix, verifyApiKey } from '#libs/crypto';
import { MerchantRepository } from '#libs/domain/merchants';
import { SESSION_TOKEN_PREFIX, UserRepository, verifySessionToken } from '#libs/domain/users';
import { DomainError, ErrorCode, merchantDisabled } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import { bearerToken } from './bearer.js';
import { PrincipalCache } from './principal-cache.js';

export const STRATEGY = {
  operator: 'bff-operator',
  merchant: 'bff-merchant-key',
  userSession: 'bff-user-session',
} as const;

type HeaderRequest = { headers: Record<string, string | string[] | undefined> };

/** One message for every refusal, so a caller cannot tell a revoked key from an unknown one. */
const refused = () => new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credentials.');
const LAST_USED_EVERY_MS = 60_000;

function sameSecret(given: string, expected: string): boolean {
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
    private readonly merchants: MerchantRepository,
    private readonly cache: PrincipalCache,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    super();
  }

  validate(request: HeaderRequest): Promise<Caller> {
    const token = bearerToken(request.headers);
    if (!token?.startsWith('mk_') || token.length > 256) throw refused();
    return this.cache.resolve(token, () => this.verify(token));
  }

  /** The key's row, hash and state: on a cache miss only, so `lastUsedAt` moves at most once a minute. */
  private async verify(token: string): Promise<{ principal: MerchantCaller; validUntil?: number }> {
    const row = await this.merchants.findApiKeyByPrefix(apiKeyPrefix(token));
    const now = new Date();
    if (
      !row ||
      !verifyApiKey(token, row.keyHash) ||
      row.revokedAt !== null ||
      (row.expiresAt !== null && row.expiresAt <= now)
    ) {
      throw refused();
    }
    if (row.merchant.disabledAt !== null) throw merchantDisabled();
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_EVERY_MS) {
      // Awaited (at most one write per key per minute) so it cannot outlive the app; but bookkeeping
      // must never fail the request it describes.
      await this.merchants
        .touchApiKey(row.merchantId, row.id, now, LAST_USED_EVERY_MS)
        .catch((err: unknown) => this.logger.warn({ err, apiKeyId: row.id }, 'could not record API key use'));
    }
    const validUntil = row.expiresAt?.getTime();
    return {
      principal: {
        kind: 'merchant',
        merchantId: row.merchantId,
        apiKeyId: row.id,
        ...(validUntil !== undefined ? { validUntil } : {}),
      },
      validUntil,
    };
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
