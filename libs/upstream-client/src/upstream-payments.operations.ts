import type {
  AuthorisationResponse,
  Payment,
  PaymentAuthorisationRequest,
  PaymentDetails,
  PaymentRequest,
} from './upstream.types.js';
import type { UpstreamClientCore } from './upstream-client.core.js';
import type { CallOptions, ConsentCallOptions } from './upstream-request.js';

/**
 * The upstream's single payments: the payment's authorisation, then the payment made with its consent
 * token. `upstream.payments`; recurring payments are `upstream.vrp`.
 */
export class UpstreamPaymentsOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  /** POST /payment-auth-requests: a single-use payment consent awaiting the user. */
  createAuthorisation(body: PaymentAuthorisationRequest, options?: CallOptions) {
    const parts = { body, institutionId: body.institutionId };
    return this.core.call<AuthorisationResponse>('createPaymentAuthorisation', parts, options);
  }

  /** POST /payments. Retried like a safe request: `paymentIdempotencyId` makes a repeat harmless. */
  create(body: PaymentRequest, options: ConsentCallOptions) {
    return this.core.call<Payment>('createPayment', { body }, options);
  }

  /** GET /payments/{paymentId}/details. */
  getDetails(paymentId: string, options: ConsentCallOptions) {
    return this.core.call<PaymentDetails>('getPayments', { ids: { paymentId } }, options);
  }
}
