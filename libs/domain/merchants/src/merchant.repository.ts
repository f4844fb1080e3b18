import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService, sqlTemplate } from '#libs/database';

export const MERCHANT_SQL = {
  /**
   * Serialises a merchant's key changes that must see each other (its last key is never revoked). NO KEY:
   * rows that reference the merchant may still be written meanwhile.
   */
  lockMerchant: sqlTemplate(
    'merchants.lock',
    (merchantId: string) =>
      Prisma.sql`SELECT id FROM merchants WHERE id = ${merchantId}::uuid FOR NO KEY UPDATE`,
  ),
  allowFrontendOrigin: sqlTemplate(
    'merchants.allow-frontend-origin',
    (
      merchantId: string,
      origin: string,
    ) => Prisma.sql`UPDATE merchants SET frontend_origins = array_append(frontend_origins, ${origin})
      WHERE id = ${merchantId}::uuid AND NOT (${origin} = ANY(frontend_origins))`,
  ),
};

@Injectable()
export class MerchantRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Creates the merchant and its key, or leaves both as they are when the key prefix already exists.
   * Idempotent, so every `npm start` (and several at once) may call it.
   */
  async ensureMerchantWithKey(input: { name: string; keyPrefix: string; keyHash: string; keyName: string }) {
    try {
      return await this.ensureOnce(input);
    } catch (error) {
      // Two processes raced to create the same key; the loser finds the winner's row on a second look.
      if ((error as { code?: string }).code !== 'P2002') throw error;
      return this.ensureOnce(input);
    }
  }

  /** The merchant and its first key in one transaction, so a merchant never exists without a way in. */
  createWithKey(
    merchant: {
      name: string;
      subApplicationId?: string;
      subApplicationName?: string;
      frontendOrigins: string[];
    },
    key: { prefix: string; keyHash: string; name?: string },
  ) {
    return this.prisma.$transaction(async (tx) => {
      const created = await tx.merchant.create({ data: merchant });
      const apiKey = await tx.apiKey.create({ data: { merchantId: created.id, ...key } });
      return { merchant: created, apiKey };
    });
  }

  findById(id: string) {
    return this.prisma.merchant.findUnique({
      where: { id },
      include: { apiKeys: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
    });
  }

  /**
   * Changes what was given of a merchant. A new sub-application (or none) only while the merchant has no
   * consent (its consents and payments live under the old one upstream), checked in the same statement so a
   * consent created meanwhile wins: `false` then. A concurrent mapping of the same sub-application fails on
   * the unique index.
   */
  async update(
    id: string,
    change: {
      name?: string;
      frontendOrigins?: string[];
      subApplicationId?: string | null;
      subApplicationName?: string | null;
    },
  ): Promise<boolean> {
    const remapping = change.subApplicationId !== undefined;
    const { count } = await this.prisma.merchant.updateMany({
      where: { id, ...(remapping ? { consents: { none: {} }, payments: { none: {} } } : {}) },
      data: change,
    });
    return count === 1;
  }

  /** Whether the merchant holds any consent or payment, whatever its state: both live under its sub-application. */
  async hasConsentsOrPayments(merchantId: string): Promise<boolean> {
    const found = await this.prisma.merchant.findFirst({
      where: { id: merchantId, OR: [{ consents: { some: {} } }, { payments: { some: {} } }] },
      select: { id: true },
    });
    return found !== null;
  }

  /**
   * Disables or enables the merchant, guarded by its current state: disabling a disabled merchant keeps
   * the first `disabledAt`. `false` when there is no such merchant.
   */
  async setDisabled(id: string, disabled: boolean, now = new Date()): Promise<boolean> {
    await this.prisma.merchant.updateMany({
      where: { id, disabledAt: disabled ? null : { not: null } },
      data: { disabledAt: disabled ? now : null },
    });
    return (await this.prisma.merchant.count({ where: { id } })) === 1;
  }

  findBySubApplication(subApplicationId: string) {
    return this.prisma.merchant.findUnique({ where: { subApplicationId } });
  }

  /** Keyset page in id order (uuid v7, so creation order), one extra row to know whether more follow. */
  async list(limit: number, afterId?: string) {
    const rows = await this.prisma.merchant.findMany({
      where: afterId ? { id: { gt: afterId } } : {},
      orderBy: { id: 'asc' },
      take: limit + 1,
      include: { apiKeys: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } },
    });
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /** Whether any enabled merchant lists this browser origin (CORS preflight carries no credentials). */
  async anyMerchantAllowsOrigin(origin: string): Promise<boolean> {
    const found = await this.prisma.merchant.findFirst({
      where: { frontendOrigins: { has: origin }, disabledAt: null },
      select: { id: true },
    });
    return found !== null;
  }

  /** Adds a browser origin the merchant's frontend runs at (the demo app's); nothing when it is listed. */
  async allowFrontendOrigin(merchantId: string, origin: string): Promise<void> {
    await this.prisma.$executeRaw(MERCHANT_SQL.allowFrontendOrigin(merchantId, origin));
  }

  frontendOriginsOf(merchantId: string) {
    return this.prisma.merchant.findUnique({ where: { id: merchantId }, select: { frontendOrigins: true } });
  }

  createApiKey(merchantId: string, key: { prefix: string; keyHash: string; name?: string }) {
    return this.prisma.apiKey.create({ data: { merchantId, ...key } });
  }

  /** Revokes one key of one merchant; false when the merchant has no such key. Revoking twice is harmless. */
  async revokeApiKey(merchantId: string, keyId: string, now = new Date()): Promise<boolean> {
    const key = await this.prisma.apiKey.findFirst({
      where: { id: keyId, merchantId },
      select: { id: true },
    });
    if (!key) return false;
    await this.prisma.apiKey.updateMany({
      where: { id: keyId, merchantId, revokedAt: null },
      data: { revokedAt: now },
    });
    return true;
  }

  /**
   * A merchant revoking one of its own keys: never the last one that still works (it would lock the
   * merchant out), decided under a lock on the merchant so two revocations at once cannot both pass.
   */
  async revokeApiKeyKeepingOne(
    merchantId: string,
    keyId: string,
    now = new Date(),
  ): Promise<'revoked' | 'missing' | 'last'> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw(MERCHANT_SQL.lockMerchant(merchantId));
      const key = await tx.apiKey.findFirst({
        where: { id: keyId, merchantId },
        select: { revokedAt: true },
      });
      if (!key) return 'missing';
      if (key.revokedAt) return 'revoked';
      const others = await tx.apiKey.count({
        where: {
          merchantId,
          id: { not: keyId },
          revokedAt: null,
          OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
        },
      });
      if (others === 0) return 'last';
      await tx.apiKey.update({ where: { id: keyId }, data: { revokedAt: now } });
      return 'revoked';
    });
  }

  /** The key row with its merchant, found by the public prefix (the auth strategy then compares hashes). */
  findApiKeyByPrefix(prefix: string) {
    return this.prisma.apiKey.findUnique({
      where: { prefix },
      include: { merchant: { select: { id: true, disabledAt: true } } },
    });
  }

  /** Records use at most once per `everyMs`, so a busy key does not write on every request. */
  async touchApiKey(merchantId: string, keyId: string, now: Date, everyMs: number): Promise<void> {
    await this.prisma.apiKey.updateMany({
      where: {
        id: keyId,
        merchantId,
        OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - everyMs) } }],
      },
      data: { lastUsedAt: now },
    });
  }

  private ensureOnce(input: { name: string; keyPrefix: string; keyHash: string; keyName: string }) {
    return this.prisma.$transaction(async (tx) => {
      // An existing key is left exactly as it is: an operator who revoked it meant it.
      const existing = await tx.apiKey.findUnique({
        where: { prefix: input.keyPrefix },
        include: { merchant: true },
      });
      if (existing) return { merchant: existing.merchant, created: false };
      const merchant = await tx.merchant.create({ data: { name: input.name } });
      await tx.apiKey.create({
        data: {
          merchantId: merchant.id,
          prefix: input.keyPrefix,
          keyHash: input.keyHash,
          name: input.keyName,
        },
      });
      return { merchant, created: true };
    });
  }
}
