import { Injectable } from '@nestjs/common';
import { PrismaService } from '#libs/database';

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
