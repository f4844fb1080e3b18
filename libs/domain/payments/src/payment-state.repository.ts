import { Injectable } from '@nestjs/common';
import { DatabasePool, type Prisma, PrismaService, queryOn } from '#libs/database';
import { MerchantEventRepository } from '#libs/domain/events';
import { Metrics } from '#libs/observability';
import { type FinalReason, PaymentMetrics } from './payment.metrics.js';
import { PAYMENT_SQL } from './payment.statements.js';
import { decimalsOf } from './payment-amount.js';
import { FINAL_PAYMENT_STATUSES, PaymentStatus } from './payment-status.js';

type Tx = Prisma.TransactionClient;

/** What a final status's event says of the payment. */
const FINAL_EVENT_FIELDS = {
  id: true,
  kind: true,
  merchantId: true,
  consentId: true,
  amount: true,
  currency: true,
  reference: true,
  upstreamPaymentId: true,
  statusDetails: true,
  consent: { select: { userId: true } },
} as const satisfies Prisma.PaymentSelect;

export interface FinalStatus {
  status: string;
  /** The upstream's statusDetails (reason, ISO status) or our own reason, kept on the row. */
  statusDetails: Prisma.InputJsonValue | null;
  /** Why, for the metrics: a closed set (see FinalReason). */
  reason: FinalReason;
}

/**
 * The one writer of a payment's final status, and of its parking for a person. A final status is applied
 * once, only over a status that is not final yet (one guarded update), with its `payment.completed` /
 * `payment.failed` event in the same transaction: a webhook, the status poll and the submission itself
 * reporting the same outcome announce it once. Parking is announced the same way, once
 * (`payment.held_for_review`): the merchant must not take a payment a person is checking for one in flight.
 */
@Injectable()
export class PaymentStateRepository {
  private readonly metrics: PaymentMetrics;

  constructor(
    private readonly prisma: PrismaService,
    private readonly database: DatabasePool,
    private readonly events: MerchantEventRepository,
    metrics: Metrics,
  ) {
    this.metrics = new PaymentMetrics(metrics.registry);
  }

  /**
   * Applies a final upstream status to our payments with that upstream id under one upstream application
   * (merchants on that sub-application, or with none for the root application: `null`); returns how many
   * matched. Upstream ids are unique within an application only.
   */
  async applyFinalStatus(
    tx: Tx,
    payment: { upstreamPaymentId: string; subApplicationId: string | null },
    status: string,
    statusDetails: Prisma.InputJsonValue | null,
    now = new Date(),
  ): Promise<{ matched: number; updated: number; merchantId: string | null }> {
    const payments = await tx.payment.findMany({
      where: {
        upstreamPaymentId: payment.upstreamPaymentId,
        merchant: { subApplicationId: payment.subApplicationId },
      },
      select: { id: true, merchantId: true },
    });
    let updated = 0;
    for (const { id } of payments) {
      if (await this.finalise(tx, id, { status, statusDetails, reason: 'bank' }, now)) updated += 1;
    }
    return { matched: payments.length, updated, merchantId: payments[0]?.merchantId ?? null };
  }

  /**
   * A final status for one of our payments, known by our id (a refusal at submission, the poll's answer).
   * `onlyFrom`: only while the payment is in exactly that status (ending one that was never sent must not
   * end one that is being sent).
   */
  async applyFinalStatusById(
    paymentId: string,
    final: FinalStatus,
    options: { onlyFrom?: string; onlyParked?: boolean; now?: Date } = {},
  ): Promise<boolean> {
    return this.prisma.$transaction((tx) =>
      this.finalise(tx, paymentId, final, options.now ?? new Date(), options.onlyFrom, options.onlyParked),
    );
  }

  /**
   * No check will move the payment any more (a repeated send refused, no token to ask with, no final status
   * after 7 days): it waits for a person to ask the bank. Once, with `payment.held_for_review`.
   */
  async holdForReview(paymentId: string, reason: string): Promise<void> {
    await this.database.transaction(async (db) => {
      const {
        rows: [held],
      } = await queryOn(db, { ...PAYMENT_SQL.holdForReview, values: [paymentId, reason.slice(0, 500)] });
      if (!held) return;
      await this.events.record(db, [
        {
          merchantId: held.merchant_id,
          userId: held.user_id,
          type: 'payment.held_for_review',
          data: {
            paymentId: held.id,
            kind: held.kind,
            consentId: held.consent_id,
            status: held.status,
            amount: { amount: held.amount, currency: held.currency },
            reference: held.reference,
            upstreamPaymentId: held.upstream_payment_id,
            heldSince: held.held_since,
            reason: reason.slice(0, 500),
          },
        },
      ]);
    });
  }

  private async finalise(
    tx: Tx,
    paymentId: string,
    final: FinalStatus,
    now: Date,
    onlyFrom?: string,
    onlyParked = false,
  ): Promise<boolean> {
    const { count } = await tx.payment.updateMany({
      where: {
        id: paymentId,
        status: onlyFrom ?? { notIn: FINAL_PAYMENT_STATUSES },
        // A person settles only what no check will move: never a payment the poll is still asking about.
        ...(onlyParked ? { nextStatusCheckAt: null } : {}),
      },
      data: {
        status: final.status,
        ...(final.statusDetails !== null ? { statusDetails: final.statusDetails } : {}),
        statusUpdatedAt: now,
        nextStatusCheckAt: null,
      },
    });
    if (count === 0) return false;
    const payment = await tx.payment.findUniqueOrThrow({
      where: { id: paymentId },
      select: FINAL_EVENT_FIELDS,
    });
    const succeeded = final.status === PaymentStatus.Completed;
    this.metrics.finalised(final.status, payment.kind, final.reason);
    await this.events.recordInTransaction(tx, [
      {
        merchantId: payment.merchantId,
        userId: payment.consent.userId,
        type: succeeded ? 'payment.completed' : 'payment.failed',
        data: {
          paymentId: payment.id,
          kind: payment.kind,
          consentId: payment.consentId,
          status: final.status,
          amount: {
            amount: payment.amount.toFixed(decimalsOf(payment.currency)),
            currency: payment.currency,
          },
          reference: payment.reference,
          upstreamPaymentId: payment.upstreamPaymentId,
          statusReason: statusReasonOf(payment.statusDetails),
        },
      },
    ]);
    return true;
  }
}

/** Why, as the payment's answer says it (statusReason): the bank's reason, or the note of whoever settled it. */
function statusReasonOf(details: Prisma.JsonValue): string | null {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return null;
  const reason = details.statusReason ?? details.reason;
  return typeof reason === 'string' ? reason : null;
}
