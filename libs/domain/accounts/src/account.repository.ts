import { Injectable } from '@nestjs/common';
import { DatabasePool, Prisma, PrismaService, isoText } from '#libs/database';
import type { Account as UpstreamAccount } from '#libs/upstream-client';
import { decimalFromUpstream } from './money.js';
import { isUuid } from '#libs/ids';

export type AccountSyncStatus = Prisma.AccountGetPayload<object>['syncStatus'];

/** An account as the API reads it, with its latest balance of each type (amounts as decimal strings). */
export interface StoredAccount {
  id: string;
  userId: string;
  consentId: string;
  institutionId: string;
  type: string | null;
  usageType: string | null;
  currency: string | null;
  nickname: string | null;
  description: string | null;
  accountNames: unknown;
  accountIdentifications: unknown;
  syncStatus: AccountSyncStatus;
  /** ISO text (see isoText): the view prints it as is. */
  lastSyncedAt: string | null;
  createdAt: string;
  updatedAt: string;
  balances: StoredBalance[];
}

export interface StoredBalance {
  type: string;
  /** Postgres `numeric` as text: exact, and no Decimal object per amount on the way out. */
  amount: string;
  currency: string;
  dateTime: string | null;
  creditLineIncluded: boolean | null;
}

/*
 * The reads behind every page view are hand-written SQL on the shared pool (the Prisma runtime cost more
 * than the query): one statement each, balances aggregated in the same round trip, prepared by name.
 */
const ACCOUNT_COLUMNS = `a.id, a.user_id AS "userId", a.consent_id AS "consentId",
  a.institution_id AS "institutionId", a.type, a.usage_type AS "usageType", a.currency, a.nickname,
  a.description, a.account_names AS "accountNames", a.account_identifications AS "accountIdentifications",
  a.sync_status AS "syncStatus", ${isoText('a.last_synced_at')} AS "lastSyncedAt",
  ${isoText('a.created_at')} AS "createdAt", ${isoText('a.updated_at')} AS "updatedAt",
  COALESCE((SELECT json_agg(json_build_object('type', b.type, 'amount', b.amount::text,
      'currency', b.currency, 'dateTime', ${isoText('b.date_time')},
      'creditLineIncluded', b.credit_line_included)
      ORDER BY b.type)
    FROM account_balances b WHERE b.account_id = a.id AND b.merchant_id = a.merchant_id), '[]'::json)
  AS balances`;

const FIND_ONE = `SELECT ${ACCOUNT_COLUMNS} FROM accounts a
  WHERE a.id = $1::uuid AND a.merchant_id = $2::uuid AND ($3::uuid IS NULL OR a.user_id = $3::uuid)`;

/** The user row decides "missing" (no row) from "no accounts" (one row of nulls): one round trip. */
const LIST_FOR_USER = `SELECT u.id AS "ownerId", acc.* FROM users u
  LEFT JOIN LATERAL (
    SELECT ${ACCOUNT_COLUMNS} FROM accounts a
    WHERE a.merchant_id = u.merchant_id AND a.user_id = u.id AND ($3::uuid IS NULL OR a.id > $3::uuid)
    ORDER BY a.id LIMIT $4
  ) acc ON true
  WHERE u.id = $2::uuid AND u.merchant_id = $1::uuid`;

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
  constructor(
    private readonly prisma: PrismaService,
    private readonly database: DatabasePool,
  ) {}

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
  async findOne(merchantId: string, accountId: string, userId?: string): Promise<StoredAccount | null> {
    if (!isUuid(accountId) || !isUuid(merchantId) || (userId !== undefined && !isUuid(userId))) return null;
    const [row] = await this.database.rows<StoredAccount>({
      name: 'accounts.find-one',
      text: FIND_ONE,
      values: [accountId, merchantId, userId ?? null],
    });
    return row ?? null;
  }

  /**
   * A user's accounts in creation order (uuid v7 ids), keyset-paged with one extra row to detect more;
   * null when the merchant has no such user (another merchant's user must read as missing, not empty).
   */
  async listForUser(merchantId: string, userId: string, limit: number, afterId?: string) {
    if (!isUuid(merchantId) || !isUuid(userId) || (afterId !== undefined && !isUuid(afterId))) return null;
    const rows = await this.database.rows<StoredAccount & { ownerId: string }>({
      name: 'accounts.list-for-user',
      text: LIST_FOR_USER,
      values: [merchantId, userId, afterId ?? null, limit + 1],
    });
    if (rows.length === 0) return null;
    const accounts = rows.filter((r) => r.id !== null);
    return { rows: accounts.slice(0, limit), more: accounts.length > limit };
  }
}
