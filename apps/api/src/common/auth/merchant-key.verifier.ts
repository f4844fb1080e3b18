import { Inject, Injectable } from '@nestjs/common';
import type { MerchantCaller } from '#libs/context';
import { apiKeyPrefix, verifyApiKey } from '#libs/crypto';
import { MerchantRepository } from '#libs/domain/merchants';
import { DomainError, ErrorCode, merchantDisabled } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';

/** One message for every refusal, so a caller cannot tell a revoked key from an unknown one. */
export const refused = () => new DomainError(ErrorCode.UNAUTHENTICATED, 'Missing or invalid credentials.');
const LAST_USED_EVERY_MS = 60_000;

export interface VerifiedKey {
  principal: MerchantCaller;
  validUntil?: number;
}

/**
 * The one place a merchant API key's state is judged (revoked, expired, its merchant disabled): for the
 * key itself in a bearer header, and for a console session made from it, which names the key but does not
 * hold it. Both therefore end at the same moment.
 */
@Injectable()
export class MerchantKeyVerifier {
  constructor(
    private readonly merchants: MerchantRepository,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  /** The caller of the key `token`, or a refusal. */
  async verifyKey(token: string): Promise<VerifiedKey> {
    if (!token.startsWith('mk_') || token.length > 256) throw refused();
    const row = await this.merchants.findApiKeyByPrefix(apiKeyPrefix(token));
    if (!row || !verifyApiKey(token, row.keyHash)) throw refused();
    return this.accept(row);
  }

  /** The caller of the key with this public prefix and id (a console session's), or a refusal. */
  async verifyKeyId(prefix: string, apiKeyId: string): Promise<VerifiedKey> {
    const row = await this.merchants.findApiKeyByPrefix(prefix);
    if (!row || row.id !== apiKeyId) throw refused();
    return this.accept(row);
  }

  /** On a cache miss only, so `lastUsedAt` moves at most once a minute. */
  private async accept(
    row: NonNullable<Awaited<ReturnType<MerchantRepository['findApiKeyByPrefix']>>>,
  ): Promise<VerifiedKey> {
    const now = new Date();
    if (row.revokedAt !== null || (row.expiresAt !== null && row.expiresAt <= now)) throw refused();
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
