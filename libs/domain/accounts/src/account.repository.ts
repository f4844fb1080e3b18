import { Injectable } from '@nestjs/common';
import { Prisma, PrismaService } from '#libs/database';
import type { Account as UpstreamAccount } from '#libs/upstream-client';
import { decimalFromUpstream } from './money.js';
import { isUuid } from '#libs/ids';

const WITH_BALANCES = {
  balances: { orderBy: [{ type: 'asc' }] },
} satisfies Prisma.AccountInclude;

export type StoredAccount = Prisma.AccountGetPayload<{ include: typeof WITH_BALANCES }>;

/** The consent an account refresh belongs to (ids only; the token never comes here). */
export interface AccountOwner {
  merchantId: string;
  userId: string;
  consentId: string;
  institutionId: string;
}

const json = (v: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull =>
  v === undefined || v === null ? Prisma.DbNull : v;

@Injectable()
export class AccountRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Upserts a consent's accounts and replaces each one's balances, all in one transaction, so a reader
   * never sees an account without its balances or half of a refresh. Balances of a type the bank no
   * longer reports are removed: the table holds the latest balance of each type.
   */
  async upsertFromUpstream(owner: AccountOwner, accounts: readonly UpstreamAccount[], now = new Date()) {
    await this.prisma.$transaction(async (tx) => {
      for (const a of accounts) {
        const fields = {
          type: a.accountType ?? a.type ?? null,
          usageType: a.usageType ?? null,
          currency: a.currency ?? null,
          nickname: a.nickname ?? null,
          description: a.description ?? null,
          details: a.details ?? null,
          accountNames: json(a.accountNames),
          accountIdentifications: json(a.accountIdentifications),
          raw: a as Prisma.InputJsonValue,
        };
        const account = await tx.account.upsert({
          where: { consentId_upstreamAccountId: { consentId: owner.consentId, upstreamAccountId: a.id } },
          create: {
            ...owner,
            upstreamAccountId: a.id,
            ...fields,
            nextSyncAt: now,
          },
          update: fields,
          select: { id: true, merchantId: true },
        });
        if (account.merchantId !== owner.merchantId) throw new Error('Account belongs to another merchant');
        const balances = (a.accountBalances ?? []).filter(
          (b): b is typeof b & { type: string; balanceAmount: { amount: number; currency: string } } =>
            typeof b.type === 'string' && b.balanceAmount !== undefined,
        );
        await tx.accountBalance.deleteMany({
          where: {
            merchantId: owner.merchantId,
            accountId: account.id,
            type: { notIn: balances.map((b) => b.type) },
          },
        });
        for (const b of balances) {
          const values = {
            amount: decimalFromUpstream(b.balanceAmount.amount),
            currency: b.balanceAmount.currency,
            dateTime: b.dateTime ? new Date(b.dateTime) : null,
            creditLineIncluded: b.creditLineIncluded ?? null,
            creditLines: json(b.creditLines),
          };
          await tx.accountBalance.upsert({
            where: { accountId_type: { accountId: account.id, type: b.type } },
            create: { merchantId: owner.merchantId, accountId: account.id, type: b.type, ...values },
            update: values,
          });
        }
      }
    });
  }

  /** One account of the merchant (and of the user, for a session), or null: another tenant's is "missing". */
  findOne(merchantId: string, accountId: string, userId?: string): Promise<StoredAccount | null> {
    if (!isUuid(accountId)) return Promise.resolve(null);
    return this.prisma.account.findFirst({
      where: { id: accountId, merchantId, ...(userId ? { userId } : {}) },
      include: WITH_BALANCES,
    });
  }

  /** Whether the user is the merchant's: another merchant's user must read as missing, not as empty. */
  async userExists(merchantId: string, userId: string): Promise<boolean> {
    if (!isUuid(userId)) return false;
    return (await this.prisma.user.count({ where: { id: userId, merchantId } })) > 0;
  }

  /** A user's accounts in creation order (uuid v7 ids), keyset-paged with one extra row to detect more. */
  async listForUser(merchantId: string, userId: string, limit: number, afterId?: string) {
    const rows = await this.prisma.account.findMany({
      where: { merchantId, userId, ...(afterId ? { id: { gt: afterId } } : {}) },
      orderBy: { id: 'asc' },
      take: limit + 1,
      include: WITH_BALANCES,
    });
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }
}
