/**
 * The statuses this code names, in one place: ours before the bank has a payment (it awaits the user's
 * approval, or is on its way), then the bank's own. The bank may answer others; they are stored as given.
 */
export const PaymentStatus = {
  AwaitingAuthorisation: 'AWAITING_AUTHORIZATION',
  Submitting: 'SUBMITTING',
  Pending: 'PENDING',
  Completed: 'COMPLETED',
  Failed: 'FAILED',
  Declined: 'DECLINED',
  Rejected: 'REJECTED',
  Expired: 'EXPIRED',
  Cancelled: 'CANCELLED',
} as const;

export type PaymentStatus = (typeof PaymentStatus)[keyof typeof PaymentStatus];

/** Statuses of payments that did not (and will not) move money: they count against no limit. */
export const NOT_PAID_STATUSES: string[] = [
  PaymentStatus.Failed,
  PaymentStatus.Declined,
  PaymentStatus.Rejected,
  PaymentStatus.Expired,
  PaymentStatus.Cancelled,
];

/** Statuses after which nothing changes: a final status is applied once, with its event. */
export const FINAL_PAYMENT_STATUSES: string[] = [PaymentStatus.Completed, ...NOT_PAID_STATUSES];

/** The final statuses as an SQL list, written into statements (they are ours: no quoting needed). */
export const FINAL_STATUSES_SQL = FINAL_PAYMENT_STATUSES.map((status) => `'${status}'`).join(', ');

/**
 * What "parked for a person" means, for the operator's list and the metrics alike, on the payments row
 * `p`: not final, and no check scheduled (a repeated send refused, no token left to ask with, or no final
 * status after 7 days). Spelled out, not a parameter, so that the partial index `payments_parked_idx`,
 * whose predicate is this one, serves it (test/parked-payments.e2e-spec.ts holds the two together).
 */
export const PARKED_PAYMENT = (p: string) =>
  `${p}.next_status_check_at IS NULL AND ${p}.status NOT IN (${FINAL_STATUSES_SQL})`;
