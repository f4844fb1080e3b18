import type {
  AuthorisationResponse,
  Payment,
  PaymentAuthorisationRequest,
  PaymentDetails,
  PaymentRequest,
} from './upstream.types.js';
import type { UpstreamClientCore } from './upstream-client.core.js';
import { type CallOptions, type ConsentCallOptions, segment } from './upstream-request.js';

/**
 * The upstream's single payments: the payment's authorisation, then the payment made with its consent
 * token. `upstream.payments`; recurring payments are `upstream.vrp`.
 */
export class UpstreamPaymentsOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  /** POST /payment-auth-requests: a single-use payment consent awaiting the user. */
  createAuthorisation(body: PaymentAuthorisationRequest, options?: CallOptions) {
    return this.core.send<AuthorisationResponse>(
      {
        operation: 'createPaymentAuthorisation',
        consent: 'none',
        method: 'POST',
        path: '/payment-auth-requests',
        body,
        institutionId: body.institutionId,
      },
      options,
    );
  }

  /** POST /payments. Retried like a safe request: `paymentIdempotencyId` makes a repeat harmless. */
  create(body: PaymentRequest, options: ConsentCallOptions) {
    return this.core.send<Payment>(
      { operation: 'createPayment', consent: 'required', method: 'POST', path: '/payments', body },
      options,
    );
  }

  /** GET /payments/{paymentId}/details. */
  getDetails(paymentId: string, options: ConsentCallOptions) {
    return this.core.send<PaymentDetails>(
      {
        operation: 'getPayments',
        consent: 'required',
        method: 'GET',
        path: `/payments/${segment(paymentId)}/details`,
      },
      options,
    );
  }
}
