import { Injectable } from '@nestjs/common';
import type { Prisma } from '#libs/database';
import { MerchantEventRepository } from '#libs/domain/events';

/** Upstream payment statuses after which nothing changes. */
export const FINAL_PAYMENT_STATUSES = ['COMPLETED', 'FAILED', 'REJECTED', 'DECLINED', 'EXPIRED'] as const;

type Tx = Prisma.TransactionClient;

/**
 * The one writer of a payment's status. A final status is applied once, only over a status that is not
 * final yet (one guarded update), with its `payment.completed` / `payment.failed` event in the same
 * transaction: a webhook and the status poll reporting the same outcome announce it once.
 */
@Injectable()
export class PaymentStateRepository {
  constructor(private readonly events: MerchantEventRepository) {}

  /** Applies a final upstream status to our payments with that upstream id; returns how many matched. */
  async applyFinalStatus(
    tx: Tx,
    upstreamPaymentId: string,
    status: string,
    statusDetails: Prisma.InputJsonValue | null,
    now = new Date(),
  ): Promise<{ matched: number; updated: number; merchantId: string | null }> {
    const payments = await tx.payment.findMany({
      where: { upstreamPaymentId },
      select: {
        id: true,
        merchantId: true,
        consentId: true,
        amount: true,
        currency: true,
        consent: { select: { userId: true } },
      },
    });
    const succeeded = status === 'COMPLETED';
    let updated = 0;
    for (const payment of payments) {
      const { count } = await tx.payment.updateMany({
        where: { id: payment.id, status: { notIn: [...FINAL_PAYMENT_STATUSES] } },
        data: {
          status,
          ...(statusDetails !== null ? { statusDetails } : {}),
          statusUpdatedAt: now,
          nextStatusCheckAt: null,
        },
      });
      if (count === 0) continue;
      updated += 1;
      await this.events.recordInTransaction(tx, [
        {
          merchantId: payment.merchantId,
          userId: payment.consent.userId,
          type: succeeded ? 'payment.completed' : 'payment.failed',
          data: {
            paymentId: payment.id,
            consentId: payment.consentId,
            status,
            amount: { amount: payment.amount.toString(), currency: payment.currency },
            upstreamPaymentId,
          },
        },
      ]);
    }
    return { matched: payments.length, updated, merchantId: payments[0]?.merchantId ?? null };
  }
}
