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
import { type CallOptions, type ConsentCallOptions, segment } from './upstream-request.js';

/**
 * The upstream's variable recurring payments (spec §4.3) and the hosted pages that set them up (§4.6):
 * `upstream.vrp`.
 */
export class UpstreamVrpOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  // ---- 4.3 variable recurring payments --------------------------------------------------------------

  /** POST /variable-recurring-payments/sweeping/consents. */
  createSweepingConsent(body: SweepingVrpConsentRequest, options?: CallOptions) {
    return this.core.send<SweepingVrpConsent>(
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
  getSweepingConsent(consentId: string, options?: CallOptions) {
    return this.core.send<SweepingVrpConsent>(
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
  getCommercialConsent(consentId: string, options?: CallOptions) {
    return this.core.send<SweepingVrpConsent>(
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
  confirmFunds(body: VrpFundsConfirmationRequest, options: ConsentCallOptions) {
    return this.core.send<VrpFundsConfirmation>(
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
  createPayment(body: VrpPaymentRequest, options: ConsentCallOptions) {
    return this.core.send<VrpPayment>(
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
  getPaymentDetails(paymentId: string, options: ConsentCallOptions) {
    return this.core.send<VrpPayment>(
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
  createCommercialRequest(body: HostedVrpRequestCreate, options?: CallOptions) {
    return this.core.send<HostedVrpRequestCreated>(
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
  getCommercialRequest(requestId: string, options?: CallOptions) {
    return this.core.send<HostedVrpRequest>(
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
