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
