import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import type { MerchantId } from '#libs/context';
import { DatabasePool, Prisma, queryOn, type SqlStatement, sqlStatement } from '#libs/database';
import { DomainError, ErrorCode } from '#libs/errors';
import { type PaymentWork } from './payment.repository.js';
import { decimalsOf } from './payment-amount.js';
import { NOT_PAID_STATUSES, PaymentStatus } from './payment-status.js';
import type { NewPayment } from './payment-views.js';
import type { PeriodLimit } from './vrp-period-limit.js';

/** One periodic limit in its current period: the limit, what was paid against it, and what is left. */
export interface LimitUse {
  limit: PeriodLimit;
  /** Written with the currency's decimals, as every amount we show. */
  paid: string;
  /** The period's limit less what was paid in it: exactly what one more payment may be, at most. */
  remaining: string;
}

/**
 * What was paid against a VRP limit, the one definition of it: the consent's VRP payments created in the
 * period, its start included and its end not (a payment at the end belongs to the next period), in any
 * status that may have moved money. One row per period, in the order given.
 */
const PAID_IN_PERIODS = `SELECT (SELECT coalesce(sum(p.amount), 0) FROM payments p
    WHERE p.consent_id = $1 AND p.merchant_id = $2 AND p.kind = 'VRP'
      AND p.created_at >= period.start_at AND p.created_at < period.end_at
      AND p.status <> ALL($5::text[]))::text AS paid
  FROM unnest($3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS period(start_at, end_at, n)
  ORDER BY period.n`;

export const VRP_PAYMENT_SQL = {
  lockConsent: sqlStatement(
    'vrp-payments.lock-consent',
    `SELECT status FROM consents WHERE id = $1 AND merchant_id = $2 FOR UPDATE`,
    { status: 'string' },
  ),
  byIdempotencyId: sqlStatement(
    'vrp-payments.by-idempotency-id',
    `SELECT id, consent_id, amount::text AS amount, created_at, status, upstream_payment_id FROM payments
          WHERE payment_idempotency_id = $1 AND merchant_id = $2`,
    {
      id: 'string',
      consent_id: 'string',
      amount: 'string',
      created_at: 'Date',
      status: 'string',
      upstream_payment_id: 'string?',
    },
  ),
  insert: sqlStatement(
    'vrp-payments.insert',
    `INSERT INTO payments (id, merchant_id, consent_id, kind, payment_idempotency_id, payment_type, status, amount,
            currency, reference, payee, next_status_check_at, created_at, updated_at)
          VALUES (uuid_generate_v7(), $1, $2, 'VRP', $3, 'DOMESTIC_VARIABLE_RECURRING_PAYMENT', '${PaymentStatus.Submitting}', $4::numeric,
            $5, $6, $7::jsonb, now() + make_interval(secs => $8::int), $9, now())
          RETURNING id, created_at`,
    { id: 'string', created_at: 'Date' },
  ),
  now: sqlStatement('vrp-payments.now', 'SELECT now() AS now', { now: 'Date' }),
  paidInPeriods: sqlStatement('vrp-payments.paid-in-periods', PAID_IN_PERIODS, {
    paid: 'string',
  }),
};

/** A VRP payment to reserve, as the merchant asked for it. */
interface ReserveRequest extends NewPayment {
  limitsAt: (now: Date) => PeriodLimit[];
  now?: Date;
  /** How long the request has to hand the payment to the bank before the status poll does it instead. */
  leaseSeconds: number;
}

/** The request with its merchant, as the reservation reads it. */
type Reservation = ReserveRequest & { merchantId: MerchantId };

type Rows = <R extends object>(statement: SqlStatement<R>) => Promise<R[]>;

/**
 * VRP payments in `payments`: the limit check and the reservation are one transaction holding the
 * consent's row lock, so concurrent payments on one consent are checked one after another and can never
 * overspend together. A reservation counts against the limits until it fails. Kept whole: the check and
 * the consent view's amounts left are one query, so they cannot disagree.
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
  async reserve(
    merchantId: MerchantId,
    request: ReserveRequest,
  ): Promise<{ work: PaymentWork; existing: boolean }> {
    const input = { ...request, merchantId };
    return this.db.transaction(async (client) => {
      await lockAuthorisedConsent(client, input);
      const found = await this.reservedBefore(client, input);
      if (found) return { existing: true, work: found };
      const read: Rows = async (statement) => (await queryOn(client, statement)).rows;
      const now = input.now ?? (await databaseNow(read));
      refuseOverLimits(input, await limitUses(read, input, input.limitsAt(now)));
      const { rows } = await queryOn(client, {
        ...VRP_PAYMENT_SQL.insert,
        values: [
          input.merchantId,
          input.consentId,
          input.paymentIdempotencyId,
          input.amount,
          input.currency,
          input.reference,
          JSON.stringify(input.payee ?? null),
          input.leaseSeconds,
          now,
        ],
      });
      return {
        existing: false,
        work: this.work(input, rows[0].id, rows[0].created_at, PaymentStatus.Submitting, null),
      };
    });
  }

  /**
   * The payment reserved before by the same request (its idempotency id), if any. The same id on another
   * consent or for another amount is another payment: refused.
   */
  private async reservedBefore(client: pg.ClientBase, input: Reservation): Promise<PaymentWork | undefined> {
    const { rows: before } = await queryOn(client, {
      ...VRP_PAYMENT_SQL.byIdempotencyId,
      values: [input.paymentIdempotencyId, input.merchantId],
    });
    const found = before[0];
    if (!found) return undefined;
    if (found.consent_id !== input.consentId || !new Prisma.Decimal(found.amount).eq(input.amount)) {
      throw new DomainError(
        ErrorCode.CONFLICT,
        'This Idempotency-Key was used for another payment: use a new key for a new payment.',
      );
    }
    return this.work(input, found.id, found.created_at, found.status, found.upstream_payment_id);
  }

  /**
   * The consent's periodic limits at `now` (the database's clock unless given, as for a payment), each
   * with what was paid against it: what the consent's view shows, by the very query the check runs.
   */
  async limitUses(
    merchantId: MerchantId,
    consent: {
      consentId: string;
      currency: string;
      limitsAt: (now: Date) => PeriodLimit[];
      now?: Date;
    },
  ): Promise<{ now: Date; uses: LimitUse[] }> {
    const input = { ...consent, merchantId };
    const rows: Rows = (statement) => this.db.rows(statement);
    const now = input.now ?? (await databaseNow(rows));
    return { now, uses: await limitUses(rows, input, input.limitsAt(now)) };
  }

  private work(
    input: NewPayment & { merchantId: string },
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
      payee: input.payee ?? null,
      createdAt,
      consentStatus: 'AUTHORIZED',
    };
  }
}

/** Locks the consent's row for the transaction; a consent that is gone or not authorised is refused. */
async function lockAuthorisedConsent(
  client: pg.ClientBase,
  consent: { merchantId: string; consentId: string },
): Promise<void> {
  // The status read before the lock may be stale: a revocation committed since must stop the payment.
  const { rows: locked } = await queryOn(client, {
    ...VRP_PAYMENT_SQL.lockConsent,
    values: [consent.consentId, consent.merchantId],
  });
  if (!locked[0]) throw new DomainError(ErrorCode.NOT_FOUND, 'Consent not found.');
  if (locked[0].status !== 'AUTHORIZED') {
    throw new DomainError(
      ErrorCode.CONSENT_NOT_AUTHORISED,
      `The consent is ${locked[0].status}, not AUTHORIZED; ask the user to connect the bank again.`,
    );
  }
}

/** Refuses a payment over what any of the consent's limits has left in its period. */
function refuseOverLimits(payment: { amount: string; currency: string }, uses: LimitUse[]): void {
  for (const { limit, remaining } of uses) {
    if (new Prisma.Decimal(payment.amount).gt(remaining)) {
      throw new DomainError(
        ErrorCode.VRP_LIMIT_EXCEEDED,
        `The payment would exceed the consent's ${limit.frequency} limit of ${limit.totalMaxAmount} ${payment.currency}: ${remaining} left until ${limit.end.toISOString()}.`,
        { details: [{ field: 'amount', issue: `exceeds ${limit.name}: ${remaining} left` }] },
      );
    }
  }
}

const databaseNow = async (rows: Rows): Promise<Date> =>
  (await rows({ ...VRP_PAYMENT_SQL.now, values: [] }))[0].now;

async function limitUses(
  rows: Rows,
  consent: { merchantId: string; consentId: string; currency: string },
  limits: PeriodLimit[],
): Promise<LimitUse[]> {
  if (limits.length === 0) return [];
  const paid = await rows({
    ...VRP_PAYMENT_SQL.paidInPeriods,
    values: [
      consent.consentId,
      consent.merchantId,
      limits.map((l) => l.start),
      limits.map((l) => l.end),
      NOT_PAID_STATUSES,
    ],
  });
  const places = decimalsOf(consent.currency);
  return limits.map((limit, i) => {
    const sum = new Prisma.Decimal(paid[i].paid);
    return {
      limit,
      paid: sum.toFixed(places),
      remaining: new Prisma.Decimal(limit.totalMaxAmount).minus(sum).toFixed(places),
    };
  });
}
