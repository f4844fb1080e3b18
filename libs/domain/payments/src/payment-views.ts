import type { PayeeInput } from './payment-amount.js';

// What PaymentRepository answers of a payment: to merchants, to the operator, and to the payment jobs.

export interface PaymentView {
  id: string;
  kind: 'SINGLE' | 'VRP';
  userId: string;
  consentId: string;
  institutionId: string;
  status: string;
  statusReason: string | null;
  /** Parked: neither final nor checked any more, until a person has asked the bank and settles it. */
  heldForReview: { since: string; reason: string } | null;
  amount: { amount: string; currency: string };
  reference: string | null;
  payee: PayeeInput | null;
  upstreamPaymentId: string | null;
  /** A single payment's bank page, while it awaits the user. */
  authorisationUrl: string | null;
  createdAt: string;
  statusUpdatedAt: string | null;
}

/** The statusReason of a payment held for review (no quote: it is written into SQL). */
export const HELD_REASON =
  'It may have been paid: a person is checking with the bank, and its final status follows';

/** A payment no check will move any more: it waits for a person to ask the bank and settle it. */
export interface ParkedPaymentView {
  id: string;
  merchantId: string;
  /** The merchant's name as it is now, so a list names it without reading every merchant. */
  merchantName: string;
  kind: 'SINGLE' | 'VRP';
  status: string;
  amount: { amount: string; currency: string };
  /** What the bank knows the payment by: our idempotency id always, its own id once it answered. */
  paymentIdempotencyId: string;
  upstreamPaymentId: string | null;
  /** Why the checks stopped. */
  reason: string | null;
  createdAt: string;
  /** What the merchant and its customer call it: the payment's reference, the customer's. */
  reference: string | null;
  userReference: string;
}

/** What a payment, single or VRP, is stored with when it is made: the bank is told the same. */
export type NewPayment = Pick<
  PaymentWork,
  'consentId' | 'paymentIdempotencyId' | 'amount' | 'currency' | 'reference' | 'payee'
>;

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
