import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { Prisma, PrismaService } from '#libs/database';
import { DomainError, ErrorCode } from '#libs/errors';

export interface IdempotencyClaim {
  merchantId: MerchantId;
  key: string;
  method: string;
  path: string;
  requestHash: string;
  expiresAt: Date;
}

export type IdempotencyRow = NonNullable<Awaited<ReturnType<IdempotencyRepository['find']>>>;

@Injectable()
export class IdempotencyRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** INSERT … ON CONFLICT DO NOTHING: true when this request now owns the key. */
  async claim(claim: IdempotencyClaim, now: Date): Promise<boolean> {
    try {
      const { count } = await this.prisma.idempotencyKey.createMany({
        data: [{ ...claim, lockedAt: now }],
        skipDuplicates: true,
      });
      return count === 1;
    } catch (error) {
      // The scope is a merchant id taken from the URL; one that names no merchant fails the foreign key.
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2003') {
        throw new DomainError(ErrorCode.NOT_FOUND, 'Merchant not found.');
      }
      throw error;
    }
  }

  find(merchantId: MerchantId, key: string) {
    return this.prisma.idempotencyKey.findUnique({ where: { merchantId_key: { merchantId, key } } });
  }

  /** Drops an expired row so the key can be claimed afresh; only if it is still the expired one. */
  async deleteExpired(merchantId: MerchantId, key: string, now: Date): Promise<void> {
    await this.prisma.idempotencyKey.deleteMany({ where: { merchantId, key, expiresAt: { lte: now } } });
  }

  /** Takes over a claim whose owner stopped before finishing (crashed), if nobody else did first. */
  async takeOver(row: IdempotencyRow, now: Date): Promise<boolean> {
    const { count } = await this.prisma.idempotencyKey.updateMany({
      where: { id: row.id, merchantId: row.merchantId, completedAt: null, lockedAt: row.lockedAt },
      data: { lockedAt: now },
    });
    return count === 1;
  }

  /**
   * Stores the answer of the claim taken at `lockedAt`; a claim released meanwhile (its process stopping)
   * or taken over stores nothing: the request that holds the key now answers it.
   */
  async complete(
    merchantId: MerchantId,
    key: string,
    lockedAt: Date,
    status: number,
    body: unknown,
    now: Date,
  ): Promise<void> {
    await this.prisma.idempotencyKey.updateMany({
      where: { merchantId, key, lockedAt, completedAt: null },
      data: {
        responseStatus: status,
        responseBody: body as Prisma.InputJsonValue,
        completedAt: now,
        lockedAt: null,
      },
    });
  }

  /**
   * A failed first attempt leaves nothing behind, so the client may retry with the same key. Only the
   * claim taken at `lockedAt` goes: a late release never drops a claim another request took over since.
   */
  async release(merchantId: MerchantId, key: string, lockedAt: Date): Promise<void> {
    await this.prisma.idempotencyKey.deleteMany({ where: { merchantId, key, completedAt: null, lockedAt } });
  }
}
