import { Injectable } from '@nestjs/common';
import { column, DatabasePool, isoText, sqlStatement } from '#libs/database';
import { amountText } from './payment-amount.js';
import { PARKED_PAYMENT } from './payment-status.js';
import type { ParkedPaymentView } from './payment-views.js';

/** Parked payments, oldest first, after `filter` on the id ($2). */
const parked = (filter: string) =>
  sqlStatement(
    undefined,
    `SELECT p.id, p.merchant_id, m.name AS merchant_name, p.kind::text AS kind, p.status,
          ${amountText('p.amount', 'p.currency')} AS amount, p.currency, p.payment_idempotency_id,
          p.upstream_payment_id, p.status_details->>'pollStopped' AS reason,
          ${isoText('p.created_at')} AS created_at, p.reference, u.reference AS user_reference
        FROM payments p JOIN merchants m ON m.id = p.merchant_id
          JOIN consents c ON c.id = p.consent_id JOIN users u ON u.id = c.user_id
        WHERE ${PARKED_PAYMENT('p')} ${filter}
        ORDER BY p.id LIMIT $1`,
    {
      id: 'string',
      merchant_id: 'string',
      merchant_name: 'string',
      kind: column<ParkedPaymentView['kind']>('string'),
      status: 'string',
      amount: 'string',
      currency: 'string',
      payment_idempotency_id: 'string',
      upstream_payment_id: 'string?',
      reason: 'string?',
      created_at: 'string',
      reference: 'string?',
      user_reference: 'string',
    },
  );

export const PARKED_PAYMENT_SQL = {
  first: parked(''),
  after: parked('AND p.id > $2::uuid'),
  one: parked('AND p.id = $2::uuid'),
};

/**
 * The operator's reads of parked payments: across merchants, each with what a person needs to ask the
 * bank about it (the merchant's name, the customer's reference). Reads only: a parked payment is parked
 * by PaymentStateRepository.holdForReview and settled through it too.
 */
@Injectable()
export class ParkedPaymentRepository {
  constructor(private readonly db: DatabasePool) {}

  /**
   * Payments parked for a person, oldest first across merchants: not final, and no check scheduled (a
   * repeated send refused, no token left to ask with, or no final status after 7 days). Keyset by id.
   */
  async list(limit: number, afterId?: string): Promise<{ rows: ParkedPaymentView[]; more: boolean }> {
    const rows = await this.read(
      afterId ? PARKED_PAYMENT_SQL.after : PARKED_PAYMENT_SQL.first,
      limit + 1,
      afterId,
    );
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /** One parked payment, or null (no such payment, or one a check will still move, or final). */
  async find(id: string): Promise<ParkedPaymentView | null> {
    const [row] = await this.read(PARKED_PAYMENT_SQL.one, 1, id);
    return row ?? null;
  }

  private async read(
    statement: typeof PARKED_PAYMENT_SQL.one,
    limit: number,
    id?: string,
  ): Promise<ParkedPaymentView[]> {
    const rows = await this.db.rows({
      ...statement,
      values: id ? [limit, id] : [limit],
    });
    return rows.map((r) => ({
      id: r.id,
      merchantId: r.merchant_id,
      merchantName: r.merchant_name,
      kind: r.kind,
      status: r.status,
      amount: { amount: r.amount, currency: r.currency },
      paymentIdempotencyId: r.payment_idempotency_id,
      upstreamPaymentId: r.upstream_payment_id,
      reason: r.reason,
      createdAt: r.created_at,
      reference: r.reference,
      userReference: r.user_reference,
    }));
  }
}
