import type {
  AuthorisationResponse,
  HostedVrpRequest,
  HostedVrpRequestCreate,
  HostedVrpRequestCreated,
  Payment,
  PaymentAuthorisationRequest,
  PaymentDetails,
  PaymentRequest,
  SweepingVrpConsent,
  SweepingVrpConsentRequest,
  VrpFundsConfirmation,
  VrpFundsConfirmationRequest,
  VrpPayment,
  VrpPaymentRequest,
} from './upstream.types.js';
import { UpstreamDataOperations } from './upstream-data.operations.js';
import { type CallOptions, type ConsentCallOptions, segment } from './upstream-request.js';

/** The upstream's payments: single payments, variable recurring payments (§4.3) and hosted VRP requests (§4.6). */
export abstract class UpstreamPaymentOperations extends UpstreamDataOperations {
  // ---- payments -------------------------------------------------------------------------------------

  /** POST /payment-auth-requests: a single-use payment consent awaiting the user. */
  createPaymentAuthorisation(body: PaymentAuthorisationRequest, options?: CallOptions) {
    return this.send<AuthorisationResponse>(
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
  createPayment(body: PaymentRequest, options: ConsentCallOptions) {
    return this.send<Payment>(
      { operation: 'createPayment', consent: 'required', method: 'POST', path: '/payments', body },
      options,
    );
  }

  /** GET /payments/{paymentId}/details. */
  getPaymentDetails(paymentId: string, options: ConsentCallOptions) {
    return this.send<PaymentDetails>(
      {
        operation: 'getPayments',
        consent: 'required',
        method: 'GET',
        path: `/payments/${segment(paymentId)}/details`,
      },
      options,
    );
  }

  // ---- 4.3 variable recurring payments --------------------------------------------------------------

  /** POST /variable-recurring-payments/sweeping/consents. */
  createSweepingVrpConsent(body: SweepingVrpConsentRequest, options?: CallOptions) {
    return this.send<SweepingVrpConsent>(
      {
        operation: 'createSweepingAuthorisation',
        consent: 'none',
        method: 'POST',
        path: '/variable-recurring-payments/sweeping/consents',
        body,
        institutionId: body.institutionId,
      },
      options,
    );
  }

  /** GET /variable-recurring-payments/sweeping/consents/{consentId}. */
  getSweepingVrpConsent(consentId: string, options?: CallOptions) {
    return this.send<SweepingVrpConsent>(
      {
        operation: 'getSweepingConsentById',
        consent: 'none',
        method: 'GET',
        path: `/variable-recurring-payments/sweeping/consents/${segment(consentId)}`,
      },
      options,
    );
  }

  /** GET /variable-recurring-payments/commercial/consents/{consentId}. */
  getCommercialVrpConsent(consentId: string, options?: CallOptions) {
    return this.send<SweepingVrpConsent>(
      {
        operation: 'getCommercialVrpConsentById',
        consent: 'none',
        method: 'GET',
        path: `/variable-recurring-payments/commercial/consents/${segment(consentId)}`,
      },
      options,
    );
  }

  /** POST /variable-recurring-payments/funds-confirmation. */
  confirmVrpFunds(body: VrpFundsConfirmationRequest, options: ConsentCallOptions) {
    return this.send<VrpFundsConfirmation>(
      {
        operation: 'createVrpFundsConfirmation',
        consent: 'required',
        method: 'POST',
        path: '/variable-recurring-payments/funds-confirmation',
        body,
      },
      options,
    );
  }

  /** POST /variable-recurring-payments/payments. Retried thanks to `paymentIdempotencyId`. */
  createVrpPayment(body: VrpPaymentRequest, options: ConsentCallOptions) {
    return this.send<VrpPayment>(
      {
        operation: 'createVrpPayment',
        consent: 'required',
        method: 'POST',
        path: '/variable-recurring-payments/payments',
        body,
      },
      options,
    );
  }

  /** GET /variable-recurring-payments/payments/{paymentId}/details. */
  getVrpPaymentDetails(paymentId: string, options: ConsentCallOptions) {
    return this.send<VrpPayment>(
      {
        operation: 'getVrpPaymentDetails',
        consent: 'required',
        method: 'GET',
        path: `/variable-recurring-payments/payments/${segment(paymentId)}/details`,
      },
      options,
    );
  }

  // ---- 4.6 hosted pages -----------------------------------------------------------------------------

  /** POST /hosted/vrp-requests/commercial (its shape from the upstream's OpenAPI: the spec shows none). */
  createCommercialVrpRequest(body: HostedVrpRequestCreate, options?: CallOptions) {
    return this.send<HostedVrpRequestCreated>(
      {
        operation: 'postHostedCommercialVrpRequest',
        consent: 'none',
        method: 'POST',
        path: '/hosted/vrp-requests/commercial',
        body,
      },
      options,
    );
  }

  /** GET /hosted/vrp-requests/commercial/{requestId}. */
  getCommercialVrpRequest(requestId: string, options?: CallOptions) {
    return this.send<HostedVrpRequest>(
      {
        operation: 'getHostedVrpRequest',
        consent: 'none',
        method: 'GET',
        path: `/hosted/vrp-requests/commercial/${segment(requestId)}`,
      },
      options,
    );
  }
}
