import { Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { DatabasePool, isoText, type RowShape, sqlStatement, type Statement } from '#libs/database';
import { isUuid } from '#libs/ids';
import { amountText, type PayeeInput } from './payment-amount.js';
import { CLAIM_LEASE_SECONDS } from './payment-claim-lease.js';
import { FINAL_PAYMENT_STATUSES, PARKED_PAYMENT, PaymentStatus } from './payment-status.js';

export interface PaymentView {
  id: string;
  kind: 'SINGLE' | 'VRP';
  userId: string;
  consentId: string;
  institutionId: string;
  status: string;
  statusReason: string | null;
  amount: { amount: string; currency: string };
  reference: string | null;
  payee: PayeeInput | null;
  upstreamPaymentId: string | null;
  /** A single payment's bank page, while it awaits the user. */
  authorisationUrl: string | null;
  createdAt: string;
  statusUpdatedAt: string | null;
}

/** A payment no check will move any more: it waits for a person to ask the bank and settle it. */
export interface ParkedPaymentView {
  id: string;
  merchantId: string;
  kind: 'SINGLE' | 'VRP';
  status: string;
  amount: { amount: string; currency: string };
  /** What the bank knows the payment by: our idempotency id always, its own id once it answered. */
  paymentIdempotencyId: string;
  upstreamPaymentId: string | null;
  /** Why the checks stopped. */
  reason: string | null;
  createdAt: string;
}

/** A payment as the submission and the status poll need it. */
export interface PaymentWork {
  id: string;
  merchantId: string;
  consentId: string;
  kind: 'SINGLE' | 'VRP';
  status: string;
  upstreamPaymentId: string | null;
  paymentIdempotencyId: string;
  amount: string;
  currency: string;
  reference: string | null;
  payee: unknown;
  createdAt: Date;
  /** The status of the payment's consent (a single payment awaiting: has the user approved it?). */
  consentStatus: string;
}

/** A payment as the API shows it. */
export const VIEW_COLUMNS = `p.id, p.kind::text AS kind, c.user_id, p.consent_id, c.institution_id, p.status,
  coalesce(p.status_details->>'statusReason', p.status_details->>'reason') AS status_reason,
  ${amountText('p.amount', 'p.currency')} AS amount, p.currency, p.reference,
  p.payee, p.upstream_payment_id,
  CASE WHEN p.status = '${PaymentStatus.AwaitingAuthorisation}' THEN c.authorisation_url END AS authorisation_url,
  ${isoText('p.created_at')} AS created_at, ${isoText('p.status_updated_at')} AS status_updated_at`;

export interface ViewRow {
  id: string;
  kind: 'SINGLE' | 'VRP';
  user_id: string;
  consent_id: string;
  institution_id: string;
  status: string;
  status_reason: string | null;
  amount: string;
  currency: string;
  reference: string | null;
  payee: PayeeInput | null;
  upstream_payment_id: string | null;
  authorisation_url: string | null;
  created_at: string;
  status_updated_at: string | null;
}

const VIEW_ROW: RowShape<ViewRow> = {
  id: 'string',
  kind: 'string',
  user_id: 'string',
  consent_id: 'string',
  institution_id: 'string',
  status: 'string',
  status_reason: 'string',
  amount: 'string',
  currency: 'string',
  reference: 'string',
  payee: 'json',
  upstream_payment_id: 'string',
  authorisation_url: 'string',
  created_at: 'string',
  status_updated_at: 'string',
};

export const toPaymentView = (r: ViewRow): PaymentView => ({
  id: r.id,
  kind: r.kind,
  userId: r.user_id,
  consentId: r.consent_id,
  institutionId: r.institution_id,
  status: r.status,
  statusReason: r.status_reason,
  amount: { amount: r.amount, currency: r.currency },
  reference: r.reference,
  payee: r.payee,
  upstreamPaymentId: r.upstream_payment_id,
  authorisationUrl: r.authorisation_url,
  createdAt: r.created_at,
  statusUpdatedAt: r.status_updated_at,
});

const WORK_COLUMNS = `id, merchant_id, consent_id, kind::text AS kind, status, upstream_payment_id,
  payment_idempotency_id, amount::text AS amount, currency, reference, payee, created_at,
  (SELECT c.status FROM consents c WHERE c.id = payments.consent_id) AS consent_status`;

interface WorkRow {
  id: string;
  merchant_id: string;
  consent_id: string;
  kind: 'SINGLE' | 'VRP';
  status: string;
  upstream_payment_id: string | null;
  payment_idempotency_id: string;
  amount: string;
  currency: string;
  reference: string | null;
  payee: unknown;
  created_at: Date;
  consent_status: string;
}

const WORK_ROW: RowShape<WorkRow> = {
  id: 'string',
  merchant_id: 'string',
  consent_id: 'string',
  kind: 'string',
  status: 'string',
  upstream_payment_id: 'string',
  payment_idempotency_id: 'string',
  amount: 'string',
  currency: 'string',
  reference: 'string',
  payee: 'json',
  created_at: 'Date',
  consent_status: 'string',
};

const toWork = (r: WorkRow): PaymentWork => ({
  id: r.id,
  merchantId: r.merchant_id,
  consentId: r.consent_id,
  kind: r.kind,
  status: r.status,
  upstreamPaymentId: r.upstream_payment_id,
  paymentIdempotencyId: r.payment_idempotency_id,
  amount: r.amount,
  currency: r.currency,
  reference: r.reference,
  payee: r.payee,
  createdAt: r.created_at,
  consentStatus: r.consent_status,
});

export { CLAIM_LEASE_SECONDS };

/**
 * When a payment without a final status is looked at next: soon after it starts, then less often as it
 * ages (a quarter of its age), within [tick, 15 minutes]. A reservation or submission in flight is given
 * `lease` seconds before the poll takes it over.
 */
const NEXT_CHECK = `now() + least(greatest((now() - created_at) / 4, make_interval(secs => $2::int)), interval '15 minutes')`;

interface ParkedRow {
  id: string;
  merchant_id: string;
  kind: ParkedPaymentView['kind'];
  status: string;
  amount: string;
  currency: string;
  payment_idempotency_id: string;
  upstream_payment_id: string | null;
  reason: string | null;
  created_at: string;
}

/** Parked payments (see listParked), after `filter` on the id ($3). */
const parked = (filter: string) =>
  sqlStatement<ParkedRow>(
    undefined,
    `SELECT p.id, p.merchant_id, p.kind::text AS kind, p.status,
          ${amountText('p.amount', 'p.currency')} AS amount, p.currency, p.payment_idempotency_id,
          p.upstream_payment_id, p.status_details->>'pollStopped' AS reason,
          ${isoText('p.created_at')} AS created_at
        FROM payments p
        WHERE ${PARKED_PAYMENT('p')} ${filter}
        ORDER BY p.id LIMIT $1`,
    {
      id: 'string',
      merchant_id: 'string',
      kind: 'string',
      status: 'string',
      amount: 'string',
      currency: 'string',
      payment_idempotency_id: 'string',
      upstream_payment_id: 'string',
      reason: 'string',
      created_at: 'string',
    },
  );

export const PAYMENT_SQL = {
  createSingle: sqlStatement<ViewRow>(
    'payments.create-single',
    `WITH p AS (
          INSERT INTO payments (id, merchant_id, consent_id, kind, payment_idempotency_id, payment_type, status, amount,
            currency, reference, payee, next_status_check_at, updated_at)
          VALUES (uuid_generate_v7(), $1, $2, 'SINGLE', $3, 'DOMESTIC_PAYMENT', '${PaymentStatus.AwaitingAuthorisation}', $4::numeric, $5,
            $6, $7::jsonb, now() + make_interval(secs => $8::int), now())
          ON CONFLICT (payment_idempotency_id) DO NOTHING
          RETURNING *)
        SELECT ${VIEW_COLUMNS} FROM p JOIN consents c ON c.id = p.consent_id`,
    VIEW_ROW,
  ),
  findByIdempotencyId: sqlStatement<ViewRow>(
    'payments.find-by-idempotency-id',
    `SELECT ${VIEW_COLUMNS} FROM payments p JOIN consents c ON c.id = p.consent_id
        WHERE p.payment_idempotency_id = $1 AND p.merchant_id = $2`,
    VIEW_ROW,
  ),
  find: sqlStatement<ViewRow>(
    'payments.find',
    `SELECT ${VIEW_COLUMNS} FROM payments p JOIN consents c ON c.id = p.consent_id
        WHERE p.id = $1 AND p.merchant_id = $2 AND ($3::uuid IS NULL OR c.user_id = $3::uuid)`,
    VIEW_ROW,
  ),
  listForUser: sqlStatement<ViewRow>(
    'payments.list-for-user',
    `SELECT ${VIEW_COLUMNS} FROM payments p JOIN consents c ON c.id = p.consent_id
        WHERE c.user_id = $1 AND p.merchant_id = $2 AND ($3::uuid IS NULL OR p.id < $3::uuid)
        ORDER BY p.id DESC LIMIT $4`,
    VIEW_ROW,
  ),
  listForConsent: sqlStatement<ViewRow>(
    'payments.list-for-consent',
    `SELECT ${VIEW_COLUMNS} FROM payments p JOIN consents c ON c.id = p.consent_id
        WHERE p.consent_id = $1 AND p.merchant_id = $2 AND ($3::uuid IS NULL OR p.id < $3::uuid)
        ORDER BY p.id DESC LIMIT $4`,
    VIEW_ROW,
  ),
  view: sqlStatement<ViewRow>(
    'payments.view',
    `SELECT ${VIEW_COLUMNS} FROM payments p JOIN consents c ON c.id = p.consent_id WHERE p.id = $1`,
    VIEW_ROW,
  ),
  claimSingle: sqlStatement<WorkRow>(
    'payments.claim-single',
    `UPDATE payments SET status = '${PaymentStatus.Submitting}', next_status_check_at = now() + make_interval(secs => $3::int),
          status_updated_at = now(), updated_at = now()
        WHERE consent_id = $1 AND merchant_id = $2 AND kind = 'SINGLE' AND status = '${PaymentStatus.AwaitingAuthorisation}'
        RETURNING ${WORK_COLUMNS}`,
    WORK_ROW,
  ),
  claimAwaiting: sqlStatement<WorkRow>(
    'payments.claim-awaiting',
    `UPDATE payments SET status = '${PaymentStatus.Submitting}', next_status_check_at = now() + make_interval(secs => $2::int),
          status_updated_at = now(), updated_at = now()
        WHERE id = $1 AND kind = 'SINGLE' AND status = '${PaymentStatus.AwaitingAuthorisation}'
        RETURNING ${WORK_COLUMNS}`,
    WORK_ROW,
  ),
  countSend: sqlStatement<{ sends: number }>(
    'payments.count-send',
    `UPDATE payments SET status_details = coalesce(status_details, '{}'::jsonb)
          || jsonb_build_object('sends', coalesce((status_details->>'sends')::int, 0) + 1)
        WHERE id = $1 RETURNING (status_details->>'sends')::int AS sends`,
    { sends: 'number' },
  ),
  singleOfConsent: sqlStatement<WorkRow>(
    'payments.single-of-consent',
    `SELECT ${WORK_COLUMNS} FROM payments WHERE consent_id = $1 AND merchant_id = $2 AND kind = 'SINGLE'`,
    WORK_ROW,
  ),
  submitted: sqlStatement(
    'payments.submitted',
    `UPDATE payments SET upstream_payment_id = $3, status = $4::text, raw = $5::jsonb, status_updated_at = now(),
          next_status_check_at = ${NEXT_CHECK}, updated_at = now()
        WHERE id = $1 AND status <> ALL($6::text[])`,
  ),
  claimDueChecks: sqlStatement<WorkRow>(
    'payments.claim-due-checks',
    `UPDATE payments SET next_status_check_at = now() + make_interval(secs => $2::int)
        WHERE id IN (SELECT p.id FROM payments p JOIN merchants m ON m.id = p.merchant_id
          WHERE p.next_status_check_at <= now() AND m.disabled_at IS NULL
          ORDER BY p.next_status_check_at LIMIT $1 FOR UPDATE OF p SKIP LOCKED)
        RETURNING ${WORK_COLUMNS}`,
    WORK_ROW,
  ),
  parkedFirst: parked(''),
  parkedAfter: parked('AND p.id > $2::uuid'),
  parkedOne: parked('AND p.id = $2::uuid'),
  submitLater: sqlStatement(
    'payments.submit-later',
    `UPDATE payments SET next_status_check_at = ${NEXT_CHECK}
        WHERE id = $1 AND status = '${PaymentStatus.Submitting}'`,
  ),
  checkLater: sqlStatement(
    'payments.check-later',
    `UPDATE payments SET next_status_check_at = ${NEXT_CHECK}
        WHERE id = $1 AND next_status_check_at IS NOT NULL`,
  ),
  stopChecking: sqlStatement(
    'payments.stop-checking',
    `UPDATE payments SET next_status_check_at = NULL,
          status_details = coalesce(status_details, '{}'::jsonb) || jsonb_build_object('pollStopped', $2::text)
        WHERE id = $1`,
  ),
};

/**
 * Reads and the non-final writes of `payments` (single and VRP); final statuses are PaymentStateRepository's,
 * VRP reservations VrpPaymentRepository's. Every tenant read names the merchant.
 */
@Injectable()
export class PaymentRepository {
  constructor(private readonly db: DatabasePool) {}

  /** A single payment awaiting its consent's authorisation; its idempotency id is reused by every submission. */
  async createSingle(
    merchantId: MerchantId,
    input: {
      consentId: string;
      paymentIdempotencyId: string;
      amount: string;
      currency: string;
      reference: string | null;
      payee: unknown;
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
    if (!isUuid(paymentId)) return null;
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

  /**
   * Payments parked for a person, oldest first across merchants: not final, and no check scheduled (a
   * repeated send refused, no token left to ask with, or no final status after 7 days). Keyset by id.
   */
  async listParked(limit: number, afterId?: string): Promise<{ rows: ParkedPaymentView[]; more: boolean }> {
    const rows = await this.parked(
      afterId ? PAYMENT_SQL.parkedAfter : PAYMENT_SQL.parkedFirst,
      limit + 1,
      afterId,
    );
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /** One parked payment, or null (no such payment, or one a check will still move, or final). */
  async findParked(id: string): Promise<ParkedPaymentView | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.parked(PAYMENT_SQL.parkedOne, 1, id);
    return row ?? null;
  }

  private async parked(
    statement: Statement<ParkedRow>,
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
      kind: r.kind,
      status: r.status,
      amount: { amount: r.amount, currency: r.currency },
      paymentIdempotencyId: r.payment_idempotency_id,
      upstreamPaymentId: r.upstream_payment_id,
      reason: r.reason,
      createdAt: r.created_at,
    }));
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

  /** No more polling for this payment (too old to be worth asking about, or nothing left to ask with). */
  async stopChecking(id: string, reason: string): Promise<void> {
    await this.db.rows({
      ...PAYMENT_SQL.stopChecking,
      values: [id, reason.slice(0, 500)],
    });
  }
}
