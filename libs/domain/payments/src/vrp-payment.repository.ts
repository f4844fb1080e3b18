import { Injectable } from '@nestjs/common';
import { DatabasePool } from '#libs/database';
import { DomainError, ErrorCode } from '#libs/errors';
import { amountText } from './payment-amount.js';
import { NOT_PAID_STATUSES, type PaymentWork } from './payment.repository.js';

export interface PeriodLimit {
  /** Which limit, as the merchant sees it (`periodicLimits[0]`, MONTHLY). */
  name: string;
  frequency: string;
  totalMaxAmount: string;
  start: Date;
  end: Date;
}

/**
 * VRP payments in `payments`: the limit check and the reservation are one transaction holding the
 * consent's row lock, so concurrent payments on one consent are checked one after another and can never
 * overspend together. A reservation counts against the limits until it fails.
 */
@Injectable()
export class VrpPaymentRepository {
  constructor(private readonly db: DatabasePool) {}

  async reserve(input: {
    merchantId: string;
    consentId: string;
    amount: string;
    currency: string;
    reference: string | null;
    payee: unknown;
    paymentIdempotencyId: string;
    limits: PeriodLimit[];
    /** How long the request has to hand the payment to the bank before the status poll does it instead. */
    leaseSeconds: number;
  }): Promise<PaymentWork> {
    return this.db.transaction(async (client) => {
      await client.query({
        name: 'vrp-payments.lock-consent',
        text: `SELECT id FROM consents WHERE id = $1 AND merchant_id = $2 FOR UPDATE`,
        values: [input.consentId, input.merchantId],
      });
      for (const limit of input.limits) {
        const { rows } = await client.query<{ headroom: string; fits: boolean }>({
          name: 'vrp-payments.headroom',
          text: `SELECT ${amountText('($4::numeric - coalesce(sum(amount), 0))', '$7::text')} AS headroom,
              coalesce(sum(amount), 0) + $5::numeric <= $4::numeric AS fits
            FROM payments
            WHERE consent_id = $1 AND kind = 'VRP' AND created_at >= $2 AND created_at < $3
              AND status <> ALL($6::text[])`,
          values: [
            input.consentId,
            limit.start,
            limit.end,
            limit.totalMaxAmount,
            input.amount,
            NOT_PAID_STATUSES,
            input.currency,
          ],
        });
        if (!rows[0].fits) {
          throw new DomainError(
            ErrorCode.VRP_LIMIT_EXCEEDED,
            `The payment would exceed the consent's ${limit.frequency} limit of ${limit.totalMaxAmount} ${input.currency}: ${rows[0].headroom} left until ${limit.end.toISOString()}.`,
            { details: [{ field: 'amount', issue: `exceeds ${limit.name}: ${rows[0].headroom} left` }] },
          );
        }
      }
      const { rows } = await client.query<{ id: string; created_at: Date }>({
        name: 'vrp-payments.insert',
        text: `INSERT INTO payments (id, merchant_id, consent_id, kind, payment_idempotency_id, payment_type, status, amount,
            currency, reference, payee, next_status_check_at, updated_at)
          VALUES (uuid_generate_v7(), $1, $2, 'VRP', $3, 'DOMESTIC_VARIABLE_RECURRING_PAYMENT', 'SUBMITTING', $4::numeric,
            $5, $6, $7::jsonb, now() + make_interval(secs => $8::int), now())
          RETURNING id, created_at`,
        values: [
          input.merchantId,
          input.consentId,
          input.paymentIdempotencyId,
          input.amount,
          input.currency,
          input.reference,
          JSON.stringify(input.payee ?? {}),
          input.leaseSeconds,
        ],
      });
      return {
        id: rows[0].id,
        merchantId: input.merchantId,
        consentId: input.consentId,
        kind: 'VRP',
        status: 'SUBMITTING',
        upstreamPaymentId: null,
        paymentIdempotencyId: input.paymentIdempotencyId,
        amount: input.amount,
        currency: input.currency,
        reference: input.reference,
        payee: input.payee ?? {},
        createdAt: rows[0].created_at,
      };
    });
  }
}
