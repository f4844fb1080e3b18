import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { DatabasePool, isoText, PrismaService, ReadCache, sqlStatement } from '#libs/database';

/** The merchant's users page, on every dashboard view: hand-written SQL on the shared pool. */
const LIST = `SELECT id, merchant_id AS "merchantId", reference, application_user_id AS "applicationUserId",
    upstream_user_uuid AS "upstreamUserUuid", vop_opt_out AS "vopOptOut",
    ${isoText('created_at')} AS "createdAt", ${isoText('updated_at')} AS "updatedAt"
  FROM users WHERE merchant_id = $1::uuid AND ($2::uuid IS NULL OR id > $2::uuid) ORDER BY id LIMIT $3`;

export const USER_SQL = {
  list: sqlStatement('users.list', LIST, {
    id: 'string',
    merchantId: 'string',
    reference: 'string',
    applicationUserId: 'string',
    upstreamUserUuid: 'string?',
    vopOptOut: 'boolean',
    createdAt: 'string',
    updatedAt: 'string',
  }),
};

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === 'P2002';

@Injectable()
export class UserRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly database: DatabasePool,
    private readonly cache: ReadCache,
  ) {}

  /** The user with their merchant's state, for the session check: one indexed read, no join beyond the merchant. */
  findForSession(merchantId: MerchantId, userId: string) {
    return this.prisma.user.findFirst({
      where: { id: userId, merchantId },
      select: { id: true, merchant: { select: { disabledAt: true } } },
    });
  }

  async create(merchantId: MerchantId, input: { reference: string; applicationUserId?: string }) {
    const user = await this.prisma.user.create({
      data: {
        merchantId,
        reference: input.reference,
        applicationUserId: input.applicationUserId ?? input.reference,
      },
    });
    this.cache.invalidate(merchantId);
    return user;
  }

  /**
   * Inserts the user unless the merchant already has one with this reference; null when another request
   * won the race, so the caller re-reads the winner's row instead of failing.
   */
  async insertIfAbsent(
    merchantId: MerchantId,
    input: { reference: string; applicationUserId: string; vopOptOut: boolean },
  ) {
    try {
      return await this.prisma.user.create({ data: { merchantId, ...input } });
    } catch (error) {
      if (isUniqueViolation(error)) return null;
      throw error;
    } finally {
      this.cache.invalidate(merchantId);
    }
  }

  findById(merchantId: MerchantId, userId: string) {
    return this.prisma.user.findFirst({ where: { id: userId, merchantId } });
  }

  findByReference(merchantId: MerchantId, reference: string) {
    return this.prisma.user.findUnique({ where: { merchantId_reference: { merchantId, reference } } });
  }

  /** Keyset page in id order (uuid v7, so creation order), one extra row to know whether more follow. */
  async list(merchantId: MerchantId, limit: number, afterId?: string) {
    // Every dashboard view reads this: kept per process until Postgres notifies a change of the merchant's.
    return this.cache.read(merchantId, `users:${afterId ?? ''}:${limit}`, async () => {
      const rows = await this.database.rows({
        ...USER_SQL.list,
        values: [merchantId, afterId ?? null, limit + 1],
      });
      return { rows: rows.slice(0, limit), more: rows.length > limit };
    });
  }

  /** Records the upstream uuid once; a concurrent request that recorded it first keeps its value. */
  async setUpstreamUserUuid(merchantId: MerchantId, userId: string, upstreamUserUuid: string) {
    await this.prisma.user.updateMany({
      where: { id: userId, merchantId, upstreamUserUuid: null },
      data: { upstreamUserUuid },
    });
    this.cache.invalidate(merchantId);
  }

  /** Null when the user is gone; a reference another user of the merchant holds fails with P2002 (409). */
  async update(
    merchantId: MerchantId,
    userId: string,
    data: { reference?: string; applicationUserId?: string; vopOptOut?: boolean },
  ) {
    const { count } = await this.prisma.user.updateMany({ where: { id: userId, merchantId }, data });
    this.cache.invalidate(merchantId);
    return count > 0 ? this.findById(merchantId, userId) : null;
  }

  /** Consents, accounts, balances and transactions go with the row (ON DELETE CASCADE). */
  async delete(merchantId: MerchantId, userId: string): Promise<boolean> {
    const { count } = await this.prisma.user.deleteMany({ where: { id: userId, merchantId } });
    this.cache.invalidate(merchantId);
    return count > 0;
  }
}
