import { Injectable } from '@nestjs/common';
import { DatabasePool, Prisma } from '#libs/database';
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

  /**
   * Checks and reserves a payment in one transaction under the consent's row lock. The same idempotency id
   * (the same merchant request) finds the payment reserved before instead. The periods are those of the
   * database's clock at the lock (or `now`, for tests), and the payment is stored at that very time, so the
   * period a payment is checked in is the period it counts in.
   */
  async reserve(input: {
    merchantId: string;
    consentId: string;
    amount: string;
    currency: string;
    reference: string | null;
    payee: unknown;
    paymentIdempotencyId: string;
    limitsAt: (now: Date) => PeriodLimit[];
    now?: Date;
    /** How long the request has to hand the payment to the bank before the status poll does it instead. */
    leaseSeconds: number;
  }): Promise<{ work: PaymentWork; existing: boolean }> {
    return this.db.transaction(async (client) => {
      await client.query({
        name: 'vrp-payments.lock-consent',
        text: `SELECT id FROM consents WHERE id = $1 AND merchant_id = $2 FOR UPDATE`,
        values: [input.consentId, input.merchantId],
      });
      const { rows: before } = await client.query<{
        id: string;
        consent_id: string;
        amount: string;
        created_at: Date;
        status: string;
        upstream_payment_id: string | null;
      }>({
        name: 'vrp-payments.by-idempotency-id',
        text: `SELECT id, consent_id, amount::text AS amount, created_at, status, upstream_payment_id FROM payments
          WHERE payment_idempotency_id = $1 AND merchant_id = $2`,
        values: [input.paymentIdempotencyId, input.merchantId],
      });
      if (before[0]) {
        const found = before[0];
        if (found.consent_id !== input.consentId || !new Prisma.Decimal(found.amount).eq(input.amount)) {
          throw new DomainError(
            ErrorCode.CONFLICT,
            'This Idempotency-Key was used for another payment: use a new key for a new payment.',
          );
        }
        return {
          existing: true,
          work: this.work(input, found.id, found.created_at, found.status, found.upstream_payment_id),
        };
      }
      const now =
        input.now ??
        (await client.query<{ now: Date }>({ name: 'vrp-payments.now', text: 'SELECT now() AS now' })).rows[0]
          .now;
      const limits = input.limitsAt(now);
      for (const limit of limits) {
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
            currency, reference, payee, next_status_check_at, created_at, updated_at)
          VALUES (uuid_generate_v7(), $1, $2, 'VRP', $3, 'DOMESTIC_VARIABLE_RECURRING_PAYMENT', 'SUBMITTING', $4::numeric,
            $5, $6, $7::jsonb, now() + make_interval(secs => $8::int), $9, now())
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
          now,
        ],
      });
      return { existing: false, work: this.work(input, rows[0].id, rows[0].created_at, 'SUBMITTING', null) };
    });
  }

  private work(
    input: {
      merchantId: string;
      consentId: string;
      paymentIdempotencyId: string;
      amount: string;
      currency: string;
      reference: string | null;
      payee: unknown;
    },
    id: string,
    createdAt: Date,
    status: string,
    upstreamPaymentId: string | null,
  ): PaymentWork {
    return {
      id,
      merchantId: input.merchantId,
      consentId: input.consentId,
      kind: 'VRP',
      status,
      upstreamPaymentId,
      paymentIdempotencyId: input.paymentIdempotencyId,
      amount: input.amount,
      currency: input.currency,
      reference: input.reference,
      payee: input.payee ?? {},
      createdAt,
      consentStatus: 'AUTHORIZED',
    };
  }
}
