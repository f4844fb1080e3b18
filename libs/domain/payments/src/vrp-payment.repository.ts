import { Injectable } from '@nestjs/common';
import { DatabasePool, isoText } from '#libs/database';
import { DomainError, ErrorCode } from '#libs/errors';

/** Statuses of payments that did not (and will not) move money: they do not count against a limit. */
export const NOT_PAID_STATUSES = ['FAILED', 'DECLINED', 'REJECTED', 'EXPIRED', 'CANCELLED'];

export interface PeriodLimit {
  /** Which limit, as the merchant sees it (`periodicLimits[0]`, MONTHLY). */
  name: string;
  frequency: string;
  totalMaxAmount: string;
  start: Date;
  end: Date;
}

export interface VrpPaymentView {
  id: string;
  consentId: string;
  status: string;
  amount: { amount: string; currency: string };
  reference: string | null;
  upstreamPaymentId: string | null;
  createdAt: string;
}

const VIEW = `id, consent_id, status, round(amount, 2)::text AS amount, currency, reference, upstream_payment_id,
  ${isoText('created_at')} AS created_at`;

interface Row {
  id: string;
  consent_id: string;
  status: string;
  amount: string;
  currency: string;
  reference: string | null;
  upstream_payment_id: string | null;
  created_at: string;
}

const toView = (r: Row): VrpPaymentView => ({
  id: r.id,
  consentId: r.consent_id,
  status: r.status,
  amount: { amount: r.amount, currency: r.currency },
  reference: r.reference,
  upstreamPaymentId: r.upstream_payment_id,
  createdAt: r.created_at,
});

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
  }): Promise<VrpPaymentView> {
    return this.db.transaction(async (client) => {
      await client.query({
        name: 'vrp-payments.lock-consent',
        text: `SELECT id FROM consents WHERE id = $1 AND merchant_id = $2 FOR UPDATE`,
        values: [input.consentId, input.merchantId],
      });
      for (const limit of input.limits) {
        const { rows } = await client.query<{ headroom: string; fits: boolean }>({
          name: 'vrp-payments.headroom',
          text: `SELECT ($4::numeric - coalesce(sum(amount), 0))::text AS headroom,
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
      const { rows } = await client.query<Row>({
        name: 'vrp-payments.insert',
        text: `INSERT INTO payments (id, merchant_id, consent_id, kind, payment_idempotency_id, status, amount, currency,
            reference, payee, updated_at)
          VALUES (uuid_generate_v7(), $1, $2, 'VRP', $3, 'SUBMITTING', $4::numeric, $5, $6, $7::jsonb, now())
          RETURNING ${VIEW}`,
        values: [
          input.merchantId,
          input.consentId,
          input.paymentIdempotencyId,
          input.amount,
          input.currency,
          input.reference,
          JSON.stringify(input.payee ?? {}),
        ],
      });
      return toView(rows[0]);
    });
  }

  /** The upstream took it: its id, its status and record; polled until final. */
  async submitted(
    id: string,
    upstreamPaymentId: string,
    status: string,
    raw: unknown,
  ): Promise<VrpPaymentView> {
    const [row] = await this.db.rows<Row>({
      name: 'vrp-payments.submitted',
      text: `UPDATE payments SET upstream_payment_id = $2, status = $3::text, raw = $4::jsonb, status_updated_at = now(),
          payment_type = 'DOMESTIC_VARIABLE_RECURRING_PAYMENT',
          next_status_check_at = CASE WHEN $3::text = ANY($5::text[]) OR $3::text = 'COMPLETED' THEN NULL
            ELSE now() + interval '30 seconds' END,
          updated_at = now()
        WHERE id = $1 RETURNING ${VIEW}`,
      values: [id, upstreamPaymentId, status, JSON.stringify(raw ?? null), NOT_PAID_STATUSES],
    });
    return toView(row);
  }

  /** The upstream refused it: the reservation is released (a failed payment counts against nothing). */
  async refused(id: string, reason: string): Promise<void> {
    await this.db.rows({
      name: 'vrp-payments.refused',
      text: `UPDATE payments SET status = 'FAILED', status_details = jsonb_build_object('reason', $2::text),
          status_updated_at = now(), updated_at = now()
        WHERE id = $1 AND status = 'SUBMITTING'`,
      values: [id, reason.slice(0, 500)],
    });
  }

  async listForConsent(merchantId: string, consentId: string, limit: number): Promise<VrpPaymentView[]> {
    const rows = await this.db.rows<Row>({
      name: 'vrp-payments.list',
      text: `SELECT ${VIEW} FROM payments WHERE consent_id = $2 AND merchant_id = $1 AND kind = 'VRP'
        ORDER BY id DESC LIMIT $3`,
      values: [merchantId, consentId, limit],
    });
    return rows.map(toView);
  }
}
