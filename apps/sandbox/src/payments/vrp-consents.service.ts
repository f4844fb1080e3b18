import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import {
  authorisationUrlFor,
  callbackOf,
  type ConsentRecord,
  ConsentsStore,
  InstitutionsCatalog,
  normaliseWireAmount,
  SandboxClockService,
  type SandboxContext,
  SandboxError,
  type SandboxUser,
} from '../core/index.js';
import {
  COMMERCIAL_VRP_SCOPE,
  PaymentConsentsService,
  SWEEPING_VRP_SCOPE,
  type VrpConsentDetails,
  type VrpControlParameters,
} from './payment-consents.service.js';
import { checkDomesticPayee } from './payments.service.js';
import type { VrpInitiationDetailsDto, VrpSweepingAuthorisationRequestDto } from './vrp.dto.js';

const FEATURES = {
  SWEEPING: {
    initiate: 'INITIATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_SWEEPING',
    create: 'CREATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_SWEEPING',
  },
  COMMERCIAL: {
    initiate: 'INITIATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_COMMERCIAL',
    create: 'CREATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_COMMERCIAL',
  },
} as const;

export interface NewVrpConsent {
  vrpType: 'SWEEPING' | 'COMMERCIAL';
  user: SandboxUser;
  institutionId: string;
  controlParameters: VrpControlParameters;
  initiationDetails: VrpInitiationDetailsDto;
  riskDetails?: Record<string, unknown>;
  callback?: string;
  oneTimeToken?: boolean;
  forwardParameters?: string[];
  hostedRequestId?: string;
}

/**
 * VRP consents: sweeping ones (POST …/sweeping/consents) and the commercial ones the hosted flow creates,
 * and which institutions offer them. The payments within a consent are VrpPaymentsService's.
 */
@Injectable()
export class VrpConsentsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly consents: ConsentsStore,
    private readonly paymentConsents: PaymentConsentsService,
    private readonly institutions: InstitutionsCatalog,
    private readonly clock: SandboxClockService,
  ) {}

  /**
   * The catalog does not list the commercial VRP features yet; sandbox-payments, which offers sweeping
   * VRP, stands in for commercial VRP too. Any other institution answers the commercial feature error.
   */
  requireVrpFeature(institutionId: string, vrpType: 'SWEEPING' | 'COMMERCIAL', step: 'initiate' | 'create') {
    const feature = FEATURES[vrpType][step];
    const institution = this.institutions.get(institutionId);
    if (institution.features.includes(feature)) return institution;
    if (vrpType === 'COMMERCIAL' && institution.features.includes(FEATURES.SWEEPING[step]))
      return institution;
    throw SandboxError.featureNotSupported(feature, institutionId);
  }

  createSweepingConsent(ctx: SandboxContext, body: VrpSweepingAuthorisationRequestDto): ConsentRecord {
    this.requireVrpFeature(body.institutionId, 'SWEEPING', 'initiate');
    const cp = body.controlParameters;
    const controlParameters: VrpControlParameters = {
      psuAuthenticationMethods: [...new Set(cp.psuAuthenticationMethods)],
      maxAmountPerPayment: normaliseWireAmount(cp.maxAmountPerPayment),
      periodicLimits: cp.periodicLimits.map((l) => ({
        frequency: l.frequency,
        alignment: l.alignment,
        totalMaxAmount: normaliseWireAmount(l.totalMaxAmount),
      })),
      validFrom: cp.validFrom,
      validTo: cp.validTo,
    };
    if (!body.initiationDetails.payee) {
      throw SandboxError.invalidProperty(
        'initiationDetails.payee',
        'A sweeping VRP consent needs the payee the payments will go to',
      );
    }
    return this.createConsent(ctx, {
      vrpType: 'SWEEPING',
      user: this.paymentConsents.resolveUser(ctx, body),
      institutionId: body.institutionId,
      controlParameters,
      initiationDetails: body.initiationDetails,
      callback: callbackOf(body),
      oneTimeToken: body.oneTimeToken,
      forwardParameters: body.forwardParameters,
    });
  }

  createConsent(ctx: SandboxContext, input: NewVrpConsent): ConsentRecord {
    const cp = input.controlParameters;
    const currency = cp.maxAmountPerPayment.currency;
    cp.periodicLimits.forEach((limit, index) => {
      if (limit.totalMaxAmount.currency !== currency) {
        throw SandboxError.invalidProperty(
          `controlParameters.periodicLimits[${index}].totalMaxAmount.currency`,
          `Every limit must be in the currency of maxAmountPerPayment (${currency})`,
        );
      }
    });
    if (cp.validFrom && cp.validTo && Date.parse(cp.validTo) <= Date.parse(cp.validFrom)) {
      throw SandboxError.invalidProperty('controlParameters.validTo', 'validTo must be after validFrom');
    }
    if (cp.validTo && Date.parse(cp.validTo) <= this.clock.nowMs()) {
      throw SandboxError.invalidProperty('controlParameters.validTo', 'validTo must be in the future');
    }
    if (input.initiationDetails.payee)
      checkDomesticPayee(input.initiationDetails.payee, 'initiationDetails.payee');
    const id = randomUUID();
    const details: VrpConsentDetails = {
      vrpType: input.vrpType,
      controlParameters: cp,
      initiationDetails: { ...input.initiationDetails },
      riskDetails: input.riskDetails,
      hostedRequestId: input.hostedRequestId,
    };
    return this.consents.create({
      id,
      kind: 'VRP_SWEEPING',
      applicationId: ctx.application.id,
      userUuid: input.user.uuid,
      applicationUserId: input.user.applicationUserId,
      referenceId: input.user.referenceId,
      institutionId: input.institutionId,
      status: 'AWAITING_AUTHORIZATION',
      featureScope: input.vrpType === 'SWEEPING' ? SWEEPING_VRP_SCOPE : COMMERCIAL_VRP_SCOPE,
      state: randomUUID().replace(/-/g, ''),
      callback: input.callback,
      oneTimeToken: input.oneTimeToken ?? false,
      forwardParameters: input.forwardParameters,
      authorisationUrl: authorisationUrlFor(this.config.sandbox.publicUrl, id),
      details: details as unknown as Record<string, unknown>,
    });
  }

  /** GET …/{sweeping|commercial}/consents/{id}: the application's VRP consent of that type, else 404. */
  getConsent(ctx: SandboxContext, consentId: string, vrpType: 'SWEEPING' | 'COMMERCIAL'): ConsentRecord {
    const record = this.consents.get(ctx.application.id, consentId);
    const details = record?.details as VrpConsentDetails | undefined;
    if (!record || record.kind !== 'VRP_SWEEPING' || details?.vrpType !== vrpType) {
      throw SandboxError.notFound(
        `${vrpType === 'SWEEPING' ? 'Sweeping' : 'Commercial'} VRP consent ${consentId} was not found`,
      );
    }
    this.requireVrpFeature(record.institutionId, vrpType, 'create');
    return record;
  }
}
