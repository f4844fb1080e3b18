import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { MerchantId } from '#libs/context';
import { Prisma, sqlStatement } from '#libs/database';
import { uuidV7 } from '#libs/ids';
import type { Account as UpstreamAccount, AccountBalance } from '#libs/upstream-client';
import { decimalFromUpstream } from './money.js';

export const ACCOUNT_BALANCE_SQL = {
  deleteStaleBalances: sqlStatement(
    'accounts.delete-stale-balances',
    `DELETE FROM account_balances WHERE merchant_id = $1::uuid AND account_id = $2::uuid
        AND NOT (type = ANY($3::text[]))`,
  ),
  upsertBalances: sqlStatement(
    'accounts.upsert-balances',
    `INSERT INTO account_balances AS b (id, merchant_id, account_id, type, amount, currency, date_time,
          credit_line_included, credit_lines, updated_at)
        SELECT r.id, $1::uuid, $2::uuid, r.type, r.amount, r.currency, r.date_time, r.credit_line_included,
          r.credit_lines, now()
        FROM jsonb_to_recordset($3::jsonb) AS r(id uuid, type text, amount numeric, currency text,
          date_time timestamptz, credit_line_included boolean, credit_lines jsonb)
        ON CONFLICT (account_id, type) DO UPDATE SET amount = EXCLUDED.amount, currency = EXCLUDED.currency,
          date_time = EXCLUDED.date_time, credit_line_included = EXCLUDED.credit_line_included,
          credit_lines = EXCLUDED.credit_lines, updated_at = now()`,
  ),
};

/** A balance the bank reported with its type and amount: the only kind stored (one per type). */
type UsableBalance = AccountBalance & { type: string; balanceAmount: { amount: number; currency: string } };
const usable = (balances: readonly AccountBalance[] = []): UsableBalance[] =>
  balances.filter((b): b is UsableBalance => typeof b.type === 'string' && b.balanceAmount !== undefined);

const json = (v: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull =>
  v === undefined || v === null ? Prisma.DbNull : v;

/**
 * The one writer of `account_balances`: the latest balance of each type the bank reports, per account,
 * those of types it no longer reports removed. Written in the transaction of whoever read them: the
 * placement of a consent's accounts (a Prisma transaction) or a sync's final one (on its own client).
 */
@Injectable()
export class AccountBalanceRepository {
  /** The balances the bank listed with the account, in the placing transaction. */
  async storeListed(
    merchantId: MerchantId,
    tx: Prisma.TransactionClient,
    accountId: string,
    a: UpstreamAccount,
  ): Promise<void> {
    const balances = usable(a.accountBalances);
    await tx.accountBalance.deleteMany({
      where: { merchantId, accountId, type: { notIn: balances.map((b) => b.type) } },
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
        where: { accountId_type: { accountId, type: b.type } },
        create: { merchantId, accountId, type: b.type, ...values },
        update: values,
      });
    }
  }

  /** The latest balances a sync read, in its final transaction. */
  async replace(
    merchantId: MerchantId,
    db: pg.PoolClient,
    accountId: string,
    read: readonly AccountBalance[],
  ): Promise<void> {
    const balances = usable(read);
    await db.query({
      ...ACCOUNT_BALANCE_SQL.deleteStaleBalances,
      values: [merchantId, accountId, balances.map((b) => b.type)],
    });
    if (balances.length === 0) return;
    await db.query({
      ...ACCOUNT_BALANCE_SQL.upsertBalances,
      values: [
        merchantId,
        accountId,
        JSON.stringify(
          balances.map((b) => ({
            id: uuidV7(),
            type: b.type,
            amount: b.balanceAmount.amount,
            currency: b.balanceAmount.currency,
            date_time: b.dateTime ?? null,
            credit_line_included: b.creditLineIncluded ?? null,
            credit_lines: b.creditLines ?? null,
          })),
        ),
      ],
    });
  }
}
