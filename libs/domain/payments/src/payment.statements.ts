import { column, isoText, row, type RowOf, sqlStatement } from '#libs/database';
import { amountText, type PayeeInput } from './payment-amount.js';
import { FINAL_STATUSES_SQL, PARKED_PAYMENT, PaymentStatus } from './payment-status.js';
import { HELD_REASON, type PaymentView, type PaymentWork } from './payment-views.js';

// The statements PaymentRepository runs, the rows they answer and the views made of them, apart from its
// methods.

/** Parked for a person: held for review, since when (one written before that was kept: its last change). */
const HELD = PARKED_PAYMENT('p');
const HELD_SINCE = `coalesce(p.status_details->>'heldForReviewSince', ${isoText('p.status_updated_at')}, ${isoText('p.created_at')})`;

export const VIEW_COLUMNS = `p.id, p.kind::text AS kind, c.user_id, p.consent_id, c.institution_id, p.status,
  CASE WHEN ${HELD} THEN '${HELD_REASON}'
    ELSE coalesce(p.status_details->>'statusReason', p.status_details->>'reason') END AS status_reason,
  CASE WHEN ${HELD} THEN ${HELD_SINCE} END AS held_since,
  CASE WHEN ${HELD} THEN coalesce(p.status_details->>'pollStopped', 'Not known') END AS held_reason,
  ${amountText('p.amount', 'p.currency')} AS amount, p.currency, p.reference,
  p.payee, p.upstream_payment_id,
  CASE WHEN p.status = '${PaymentStatus.AwaitingAuthorisation}' THEN c.authorisation_url END AS authorisation_url,
  ${isoText('p.created_at')} AS created_at, ${isoText('p.status_updated_at')} AS status_updated_at`;

const VIEW_ROW = row({
  id: 'string',
  kind: column<PaymentView['kind']>('string'),
  user_id: 'string',
  consent_id: 'string',
  institution_id: 'string',
  status: 'string',
  status_reason: 'string?',
  held_since: 'string?',
  held_reason: 'string?',
  amount: 'string',
  currency: 'string',
  reference: 'string?',
  payee: column<PayeeInput | null>('json?'),
  upstream_payment_id: 'string?',
  authorisation_url: 'string?',
  created_at: 'string',
  status_updated_at: 'string?',
});

export type ViewRow = RowOf<typeof VIEW_ROW>;

export const toPaymentView = (r: ViewRow): PaymentView => ({
  id: r.id,
  kind: r.kind,
  userId: r.user_id,
  consentId: r.consent_id,
  institutionId: r.institution_id,
  status: r.status,
  statusReason: r.status_reason,
  heldForReview: r.held_since === null ? null : { since: r.held_since, reason: r.held_reason ?? '' },
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

const WORK_ROW = row({
  id: 'string',
  merchant_id: 'string',
  consent_id: 'string',
  kind: column<PaymentWork['kind']>('string'),
  status: 'string',
  upstream_payment_id: 'string?',
  payment_idempotency_id: 'string',
  amount: 'string',
  currency: 'string',
  reference: 'string?',
  payee: column<unknown>('json'),
  created_at: 'Date',
  consent_status: 'string',
});

export const toWork = (r: RowOf<typeof WORK_ROW>): PaymentWork => ({
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

/**
 * When a payment without a final status is looked at next: soon after it starts, then less often as it
 * ages (a quarter of its age), within [tick, 15 minutes]. A reservation or submission in flight is given
 * `lease` seconds before the poll takes it over.
 */
const NEXT_CHECK = `now() + least(greatest((now() - created_at) / 4, make_interval(secs => $2::int)), interval '15 minutes')`;

export const PAYMENT_SQL = {
  createSingle: sqlStatement(
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
  findByIdempotencyId: sqlStatement(
    'payments.find-by-idempotency-id',
    `SELECT ${VIEW_COLUMNS} FROM payments p JOIN consents c ON c.id = p.consent_id
        WHERE p.payment_idempotency_id = $1 AND p.merchant_id = $2`,
    VIEW_ROW,
  ),
  find: sqlStatement(
    'payments.find',
    `SELECT ${VIEW_COLUMNS} FROM payments p JOIN consents c ON c.id = p.consent_id
        WHERE p.id = $1 AND p.merchant_id = $2 AND ($3::uuid IS NULL OR c.user_id = $3::uuid)`,
    VIEW_ROW,
  ),
  listForUser: sqlStatement(
    'payments.list-for-user',
    `SELECT ${VIEW_COLUMNS} FROM payments p JOIN consents c ON c.id = p.consent_id
        WHERE c.user_id = $1 AND p.merchant_id = $2 AND ($3::uuid IS NULL OR p.id < $3::uuid)
        ORDER BY p.id DESC LIMIT $4`,
    VIEW_ROW,
  ),
  listForConsent: sqlStatement(
    'payments.list-for-consent',
    `SELECT ${VIEW_COLUMNS} FROM payments p JOIN consents c ON c.id = p.consent_id
        WHERE p.consent_id = $1 AND p.merchant_id = $2 AND ($3::uuid IS NULL OR p.id < $3::uuid)
        ORDER BY p.id DESC LIMIT $4`,
    VIEW_ROW,
  ),
  findForTracingLookup: sqlStatement(
    'payments.find-for-tracing-lookup',
    // Each way in by its own index (the primary key, the call log's merchant and tracing id), so a
    // merchant with many payments is never scanned; the few found are then ordered.
    `SELECT ${VIEW_COLUMNS} FROM payments p JOIN consents c ON c.id = p.consent_id
        WHERE p.merchant_id = $1::uuid AND p.id IN (
          SELECT id FROM payments WHERE id = $3::uuid AND merchant_id = $1::uuid
          UNION ALL
          -- A payment any of whose upstream calls the upstream answered with it.
          SELECT payment_id FROM upstream_calls WHERE merchant_id = $1::uuid AND tracing_id = $2::text
            AND payment_id IS NOT NULL)
        ORDER BY p.id DESC LIMIT $4`,
    VIEW_ROW,
  ),
  view: sqlStatement(
    'payments.view',
    `SELECT ${VIEW_COLUMNS} FROM payments p JOIN consents c ON c.id = p.consent_id WHERE p.id = $1`,
    VIEW_ROW,
  ),
  claimSingle: sqlStatement(
    'payments.claim-single',
    `UPDATE payments SET status = '${PaymentStatus.Submitting}', next_status_check_at = now() + make_interval(secs => $3::int),
          status_updated_at = now(), updated_at = now()
        WHERE consent_id = $1 AND merchant_id = $2 AND kind = 'SINGLE' AND status = '${PaymentStatus.AwaitingAuthorisation}'
        RETURNING ${WORK_COLUMNS}`,
    WORK_ROW,
  ),
  claimAwaiting: sqlStatement(
    'payments.claim-awaiting',
    `UPDATE payments SET status = '${PaymentStatus.Submitting}', next_status_check_at = now() + make_interval(secs => $2::int),
          status_updated_at = now(), updated_at = now()
        WHERE id = $1 AND kind = 'SINGLE' AND status = '${PaymentStatus.AwaitingAuthorisation}'
        RETURNING ${WORK_COLUMNS}`,
    WORK_ROW,
  ),
  countSend: sqlStatement(
    'payments.count-send',
    `UPDATE payments SET status_details = coalesce(status_details, '{}'::jsonb)
          || jsonb_build_object('sends', coalesce((status_details->>'sends')::int, 0) + 1)
        WHERE id = $1 RETURNING (status_details->>'sends')::int AS sends`,
    { sends: 'number' },
  ),
  singleOfConsent: sqlStatement(
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
  claimDueChecks: sqlStatement(
    'payments.claim-due-checks',
    `UPDATE payments SET next_status_check_at = now() + make_interval(secs => $2::int)
        WHERE id IN (SELECT p.id FROM payments p JOIN merchants m ON m.id = p.merchant_id
          WHERE p.next_status_check_at <= now() AND m.disabled_at IS NULL
          ORDER BY p.next_status_check_at LIMIT $1 FOR UPDATE OF p SKIP LOCKED)
        RETURNING ${WORK_COLUMNS}`,
    WORK_ROW,
  ),
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
  /*
   * Parked for a person, once: no more checks, why, and since when (`heldForReviewSince`, kept in the
   * status details beside the reason). Answers the payment for its event; nothing when it was final or
   * held already, so the event is recorded once.
   */
  holdForReview: sqlStatement(
    'payments.hold-for-review',
    `UPDATE payments p SET next_status_check_at = NULL, updated_at = now(),
          status_details = coalesce(p.status_details, '{}'::jsonb)
            || jsonb_build_object('pollStopped', $2::text, 'heldForReviewSince', ${isoText('now()')})
        FROM consents c
        WHERE p.id = $1 AND c.id = p.consent_id AND p.status NOT IN (${FINAL_STATUSES_SQL})
          AND NOT coalesce(p.status_details ? 'heldForReviewSince', false)
        RETURNING p.id, p.merchant_id, c.user_id, p.kind::text AS kind, p.consent_id, p.status,
          ${amountText('p.amount', 'p.currency')} AS amount, p.currency, p.reference, p.upstream_payment_id,
          p.status_details->>'heldForReviewSince' AS held_since`,
    {
      id: 'string',
      merchant_id: 'string',
      user_id: 'string',
      kind: column<PaymentView['kind']>('string'),
      consent_id: 'string',
      status: 'string',
      amount: 'string',
      currency: 'string',
      reference: 'string?',
      upstream_payment_id: 'string?',
      held_since: 'string',
    },
  ),
};
