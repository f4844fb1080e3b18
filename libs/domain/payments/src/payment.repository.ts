import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { DatabasePool } from '#libs/database';
import { PAYMENT_SQL, toPaymentView, toWork } from './payment.statements.js';
import { CLAIM_LEASE_SECONDS } from './payment-claim-lease.js';
import { FINAL_PAYMENT_STATUSES } from './payment-status.js';
import type { NewPayment, PaymentView, PaymentWork } from './payment-views.js';

export { PAYMENT_SQL, toPaymentView, VIEW_COLUMNS, type ViewRow } from './payment.statements.js';
export type { ParkedPaymentView, PaymentView, PaymentWork } from './payment-views.js';
export { CLAIM_LEASE_SECONDS };
/**
 * Reads and the non-final writes of `payments` (single and VRP); final statuses are PaymentStateRepository's,
 * VRP reservations VrpPaymentRepository's, the operator's parked list ParkedPaymentRepository's. Every
 * tenant read names the merchant.
 */
@Injectable()
export class PaymentRepository {
  constructor(private readonly db: DatabasePool) {}

  /** A single payment awaiting its consent's authorisation; its idempotency id is reused by every submission. */
  async createSingle(
    merchantId: MerchantId,
    input: NewPayment & {
      /** When the user's chance to approve it is over: the status poll then ends it EXPIRED. */
      authorisationWindowSeconds: number;
    },
  ): Promise<PaymentView> {
    const [row] = await this.db.rows({
      ...PAYMENT_SQL.createSingle,
      values: [
        merchantId,
        input.consentId,
        input.paymentIdempotencyId,
        input.amount,
        input.currency,
        input.reference,
        JSON.stringify(input.payee),
        input.authorisationWindowSeconds,
      ],
    });
    // A concurrent retry of the same request made it first: that one is the payment.
    return row
      ? toPaymentView(row)
      : (await this.findByIdempotencyId(merchantId, input.paymentIdempotencyId))!;
  }

  /** The merchant's payment made for this idempotency id (that is, for one Idempotency-Key), if any. */
  async findByIdempotencyId(
    merchantId: MerchantId,
    paymentIdempotencyId: string,
  ): Promise<PaymentView | null> {
    const [row] = await this.db.rows({
      ...PAYMENT_SQL.findByIdempotencyId,
      values: [paymentIdempotencyId, merchantId],
    });
    return row ? toPaymentView(row) : null;
  }

  async findForCaller(
    merchantId: MerchantId,
    paymentId: string,
    userId?: string,
  ): Promise<PaymentView | null> {
    const [row] = await this.db.rows({
      ...PAYMENT_SQL.find,
      values: [paymentId, merchantId, userId ?? null],
    });
    return row ? toPaymentView(row) : null;
  }

  /** A user's payments newest first (uuid v7 ids are creation-ordered), keyset-paged by id. */
  async listForUser(merchantId: MerchantId, userId: string, limit: number, beforeId?: string) {
    const rows = await this.db.rows({
      ...PAYMENT_SQL.listForUser,
      values: [userId, merchantId, beforeId ?? null, limit + 1],
    });
    return { rows: rows.slice(0, limit).map(toPaymentView), more: rows.length > limit };
  }

  /** A consent's payments newest first, keyset-paged by id. */
  async listForConsent(merchantId: MerchantId, consentId: string, limit: number, beforeId?: string) {
    const rows = await this.db.rows({
      ...PAYMENT_SQL.listForConsent,
      values: [consentId, merchantId, beforeId ?? null, limit + 1],
    });
    return { rows: rows.slice(0, limit).map(toPaymentView), more: rows.length > limit };
  }

  /**
   * The lookup's payments (GET /v1/lookup): those any of whose upstream calls the upstream answered with
   * `tracingId`, or whose id is `paymentId`; newest first.
   */
  async findForTracingLookup(
    merchantId: MerchantId,
    id: { tracingId: string; paymentId: string | null },
    limit: number,
  ): Promise<PaymentView[]> {
    const rows = await this.db.rows({
      ...PAYMENT_SQL.findForTracingLookup,
      values: [merchantId, id.tracingId, id.paymentId, limit],
    });
    return rows.map(toPaymentView);
  }

  async view(paymentId: string): Promise<PaymentView> {
    const [row] = await this.db.rows({
      ...PAYMENT_SQL.view,
      values: [paymentId],
    });
    return toPaymentView(row);
  }

  /**
   * The single payment of a consent the user has just approved, claimed for its submission (once: of two
   * callbacks only one finds it awaiting), with a lease after which the status poll submits it instead.
   */
  async claimSingleSubmission(
    merchantId: MerchantId,
    consentId: string,
    leaseSeconds: number,
  ): Promise<PaymentWork | null> {
    const [row] = await this.db.rows({
      ...PAYMENT_SQL.claimSingle,
      values: [consentId, merchantId, leaseSeconds],
    });
    return row ? toWork(row) : null;
  }

  /**
   * A single payment still awaiting, claimed by our id for its submission (the poll's path when the
   * callback's own submission never started); null when another got it first.
   */
  async claimAwaitingById(id: string): Promise<PaymentWork | null> {
    const [row] = await this.db.rows({
      ...PAYMENT_SQL.claimAwaiting,
      values: [id, CLAIM_LEASE_SECONDS],
    });
    return row ? toWork(row) : null;
  }

  /**
   * Counts a send to the bank before it is made, and answers how many there have been: a payment sent
   * before may have been made, so a refusal of a later send proves nothing.
   */
  async countSend(id: string): Promise<number> {
    const [row] = await this.db.rows({
      ...PAYMENT_SQL.countSend,
      values: [id],
    });
    return row?.sends ?? 1;
  }

  /** The single payment of a consent, whatever its status (the callback's failure path). */
  async singleOfConsent(merchantId: MerchantId, consentId: string): Promise<PaymentWork | null> {
    const [row] = await this.db.rows({
      ...PAYMENT_SQL.singleOfConsent,
      values: [consentId, merchantId],
    });
    return row ? toWork(row) : null;
  }

  /**
   * The bank has the payment: its id, its (not final) status and record, and when to look at it next.
   * Only over our own pre-bank phases or another non-final status: a final status already applied stays.
   */
  async recordSubmitted(
    id: string,
    upstreamPaymentId: string,
    status: string,
    raw: unknown,
    tickSeconds: number,
  ): Promise<void> {
    await this.db.rows({
      ...PAYMENT_SQL.submitted,
      values: [
        id,
        tickSeconds,
        upstreamPaymentId,
        status,
        JSON.stringify(raw ?? null),
        FINAL_PAYMENT_STATUSES,
      ],
    });
  }

  /**
   * Claims up to `limit` payments whose status check is due, for this poller alone: skip-locked, and
   * leased for {@link CLAIM_LEASE_SECONDS} (each check then sets the real next one), so no other worker
   * checks or sends the same payment while this round is at it. A disabled merchant's payments wait,
   * due, until it is enabled.
   */
  async claimDueChecks(limit: number): Promise<PaymentWork[]> {
    const rows = await this.db.rows({
      ...PAYMENT_SQL.claimDueChecks,
      values: [limit, CLAIM_LEASE_SECONDS],
    });
    return rows.map(toWork);
  }

  /** A submission that did not complete is no longer in flight: the poll may send it again on its schedule. */
  async submitLater(id: string, tickSeconds: number): Promise<void> {
    await this.db.rows({
      ...PAYMENT_SQL.submitLater,
      values: [id, tickSeconds],
    });
  }

  /**
   * A check that failed (the bank or our database unavailable) gives up its claim's lease: the next is
   * on the usual schedule, not {@link CLAIM_LEASE_SECONDS} away. A payment no longer polled stays so.
   */
  async checkLater(id: string, tickSeconds: number): Promise<void> {
    await this.db.rows({
      ...PAYMENT_SQL.checkLater,
      values: [id, tickSeconds],
    });
  }
}
