import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ConsentsStore,
  InstitutionsCatalog,
  normaliseWireAmount,
  SandboxClockService,
  type SandboxContext,
  SandboxError,
} from '../core/index.js';
import { PaymentConsentsService } from './payment-consents.service.js';
import { type HostedVrpRequestRecord, PaymentsStore } from './payments.store.js';
import type { HostedVrpRequestDto } from './vrp.dto.js';
import { VrpConsentsService } from './vrp-consents.service.js';

/** How long the PSU has to complete a hosted VRP request before it becomes `expired`. */
export const HOSTED_VRP_AUTHORISATION_TTL_MS = 10 * 60 * 1000;

/**
 * Hosted commercial VRP requests. Creating one creates its commercial VRP consent, awaiting the PSU
 * on the sandbox bank page (`hostedUrl`). The request's status follows that consent and is derived on
 * every read: created → succeed (consent AUTHORIZED) | rejected (REJECTED/REVOKED) | failed (FAILED)
 * | expired (not decided within 10 minutes, or the consent EXPIRED before authorisation).
 */
@Injectable()
export class HostedVrpService {
  constructor(
    private readonly consents: ConsentsStore,
    private readonly paymentConsents: PaymentConsentsService,
    private readonly institutions: InstitutionsCatalog,
    private readonly clock: SandboxClockService,
    private readonly store: PaymentsStore,
    private readonly vrpConsents: VrpConsentsService,
  ) {}

  create(ctx: SandboxContext, body: HostedVrpRequestDto): HostedVrpRequestRecord {
    const institutionId = body.institutionIdentifiers.institutionId;
    const institution = this.vrpConsents.requireVrpFeature(institutionId, 'COMMERCIAL', 'initiate');
    const user = this.paymentConsents.resolveUser(ctx, {
      userUuid: body.userId,
      applicationUserId: body.userId ? undefined : body.applicationUserId,
    });
    if (user.applicationUserId && user.applicationUserId !== body.applicationUserId) {
      throw SandboxError.invalidProperty(
        'applicationUserId',
        `User ${user.uuid} has the applicationUserId ${user.applicationUserId}, not ${body.applicationUserId}`,
      );
    }
    const requestId = randomUUID();
    const cp = body.controlParameters;
    const consent = this.vrpConsents.createConsent(ctx, {
      vrpType: 'COMMERCIAL',
      user,
      institutionId,
      controlParameters: {
        psuAuthenticationMethods: ['SCA_NOT_REQUIRED'],
        maxAmountPerPayment: normaliseWireAmount(cp.maxAmountPerPayment),
        periodicLimits: [
          {
            frequency: cp.periodicLimit.frequency,
            alignment: 'CONSENT',
            totalMaxAmount: normaliseWireAmount(cp.periodicLimit.totalMaxAmount),
          },
        ],
        validFrom: cp.validFrom,
        validTo: cp.validTo,
      },
      initiationDetails: body.initiationDetails ?? {},
      riskDetails: { ...body.riskDetails, isContractPresent: ctx.application.isContractPresent },
      callback: body.redirectUrl,
      oneTimeToken: body.oneTimeToken,
      hostedRequestId: requestId,
    });
    const now = this.clock.nowMs();
    return this.store.addHosted({
      requestId,
      applicationId: ctx.application.id,
      userId: user.uuid,
      applicationUserId: body.applicationUserId,
      tppRedirectUrl: body.redirectUrl,
      createdAt: new Date(now).toISOString(),
      authorisationExpiresAt: new Date(now + HOSTED_VRP_AUTHORISATION_TTL_MS).toISOString(),
      institutionIdentifiers: {
        institutionId,
        institutionCountryCode:
          body.institutionIdentifiers.institutionCountryCode ?? institution.countries[0].countryCode2,
      },
      userSettings: body.userSettings,
      consentId: consent.id,
      hostedUrl: consent.authorisationUrl!,
      currentStatus: 'created',
      statusUpdatedAt: new Date(now).toISOString(),
      errorCode: null,
    });
  }

  get(ctx: SandboxContext, requestId: string): HostedVrpRequestRecord {
    const request = this.store.getHosted(ctx.application.id, requestId);
    if (!request) throw SandboxError.notFound(`Hosted VRP request ${requestId} was not found`);
    return this.refresh(request);
  }

  /** Spec 2.10. */
  view(request: HostedVrpRequestRecord) {
    const consent = this.consents.get(request.applicationId, request.consentId);
    const succeeded = request.currentStatus === 'succeed' && consent?.consentToken;
    return {
      requestType: 'vrp',
      requestId: request.requestId,
      applicationId: request.applicationId,
      userId: request.userId,
      applicationUserId: request.applicationUserId,
      tppRedirectUrl: request.tppRedirectUrl,
      createdAt: request.createdAt,
      institutionIdentifiers: request.institutionIdentifiers,
      status: {
        currentStatus: request.currentStatus,
        statusUpdatedAt: request.statusUpdatedAt,
        // The bank page sends the PSU back to tppRedirectUrl once the consent is decided.
        tppNotified: request.currentStatus !== 'created' && request.currentStatus !== 'expired',
        qrScanned: false,
        errorCode: request.errorCode,
      },
      ...(succeeded ? { result: { consentId: consent.id, consentToken: consent.consentToken } } : {}),
    };
  }

  createdView(request: HostedVrpRequestRecord) {
    return {
      requestId: request.requestId,
      hostedUrl: request.hostedUrl,
      institutionIdentifiers: request.institutionIdentifiers,
      userSettings: request.userSettings,
      createdAt: request.createdAt,
      authorisationExpiresAt: request.authorisationExpiresAt,
    };
  }

  private refresh(request: HostedVrpRequestRecord): HostedVrpRequestRecord {
    if (request.currentStatus !== 'created') return request;
    const consent = this.consents.get(request.applicationId, request.consentId);
    const now = this.clock.now().toISOString();
    const move = (status: HostedVrpRequestRecord['currentStatus'], at: string, errorCode: string | null) => {
      request.currentStatus = status;
      request.statusUpdatedAt = at;
      request.errorCode = errorCode;
    };
    if (!consent) return request;
    if (consent.authorizedAt) {
      move('succeed', consent.authorizedAt, null);
    } else if (consent.status === 'REJECTED' || consent.status === 'REVOKED') {
      move('rejected', now, 'CONSENT_REJECTED');
    } else if (consent.status === 'FAILED') {
      move('failed', now, 'CONSENT_FAILED');
    } else if (consent.status === 'EXPIRED' || now >= request.authorisationExpiresAt) {
      if (consent.status.startsWith('AWAITING')) {
        consent.status = 'EXPIRED';
        this.consents.update(consent);
      }
      move('expired', request.authorisationExpiresAt, 'SESSION_EXPIRED');
    }
    return request;
  }
}
