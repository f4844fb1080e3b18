import { Injectable } from '@nestjs/common';
import { PrismaService } from '#libs/database';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class UserRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The user with their merchant's state, for the session check: one indexed read, no join beyond the merchant. */
  findForSession(merchantId: string, userId: string) {
    // A malformed id would make Postgres refuse the uuid cast; it simply names no user.
    if (!UUID.test(merchantId) || !UUID.test(userId)) return Promise.resolve(null);
    return this.prisma.user.findFirst({
      where: { id: userId, merchantId },
      select: { id: true, merchant: { select: { disabledAt: true } } },
    });
  }

  create(merchantId: string, input: { reference: string; applicationUserId?: string }) {
    return this.prisma.user.create({
      data: {
        merchantId,
        reference: input.reference,
        applicationUserId: input.applicationUserId ?? input.reference,
      },
    });
  }

  async delete(merchantId: string, userId: string): Promise<boolean> {
    const { count } = await this.prisma.user.deleteMany({ where: { id: userId, merchantId } });
    return count > 0;
  }
}
