import type {
  HostedVrpRequest,
  HostedVrpRequestCreate,
  HostedVrpRequestCreated,
  SweepingVrpConsent,
  SweepingVrpConsentRequest,
  VrpFundsConfirmation,
  VrpFundsConfirmationRequest,
  VrpPayment,
  VrpPaymentRequest,
} from './upstream.types.js';
import type { UpstreamClientCore } from './upstream-client.core.js';
import type { CallOptions, ConsentCallOptions } from './upstream-request.js';

/**
 * The upstream's variable recurring payments (spec §4.3) and the hosted pages that set them up (§4.6):
 * `upstream.vrp`.
 */
export class UpstreamVrpOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  // ---- 4.3 variable recurring payments --------------------------------------------------------------

  /** POST /variable-recurring-payments/sweeping/consents. */
  createSweepingConsent(body: SweepingVrpConsentRequest, options?: CallOptions) {
    const parts = { body, institutionId: body.institutionId };
    return this.core.call<SweepingVrpConsent>('createSweepingAuthorisation', parts, options);
  }

  /** GET /variable-recurring-payments/sweeping/consents/{consentId}. */
  getSweepingConsent(consentId: string, options?: CallOptions) {
    return this.core.call<SweepingVrpConsent>('getSweepingConsentById', { ids: { consentId } }, options);
  }

  /** GET /variable-recurring-payments/commercial/consents/{consentId}. */
  getCommercialConsent(consentId: string, options?: CallOptions) {
    return this.core.call<SweepingVrpConsent>('getCommercialVrpConsentById', { ids: { consentId } }, options);
  }

  /** POST /variable-recurring-payments/funds-confirmation. */
  confirmFunds(body: VrpFundsConfirmationRequest, options: ConsentCallOptions) {
    return this.core.call<VrpFundsConfirmation>('createVrpFundsConfirmation', { body }, options);
  }

  /** POST /variable-recurring-payments/payments. Retried thanks to `paymentIdempotencyId`. */
  createPayment(body: VrpPaymentRequest, options: ConsentCallOptions) {
    return this.core.call<VrpPayment>('createVrpPayment', { body }, options);
  }

  /** GET /variable-recurring-payments/payments/{paymentId}/details. */
  getPaymentDetails(paymentId: string, options: ConsentCallOptions) {
    return this.core.call<VrpPayment>('getVrpPaymentDetails', { ids: { paymentId } }, options);
  }

  // ---- 4.6 hosted pages -----------------------------------------------------------------------------

  /** POST /hosted/vrp-requests/commercial (its shape from the upstream's OpenAPI: the spec shows none). */
  createCommercialRequest(body: HostedVrpRequestCreate, options?: CallOptions) {
    return this.core.call<HostedVrpRequestCreated>('postHostedCommercialVrpRequest', { body }, options);
  }

  /** GET /hosted/vrp-requests/commercial/{requestId}. */
  getCommercialRequest(requestId: string, options?: CallOptions) {
    return this.core.call<HostedVrpRequest>('getHostedVrpRequest', { ids: { requestId } }, options);
  }
}
