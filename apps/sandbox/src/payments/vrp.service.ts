import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import {
  authorisationUrlFor,
  callbackOf,
  type ConsentRecord,
  ConsentsStore,
  formatMinor,
  InstitutionsCatalog,
  normaliseWireAmount,
  SandboxClockService,
  type SandboxContext,
  SandboxError,
  type SandboxUser,
  toMinor,
  wireAmount,
} from '../core/index.js';
import {
  COMMERCIAL_VRP_SCOPE,
  PaymentConsentsService,
  SWEEPING_VRP_SCOPE,
  type VrpConsentDetails,
  type VrpControlParameters,
} from './payment-consents.service.js';
import { PAYER_AVAILABLE_BALANCE, PaymentLifecycleService } from './payment-lifecycle.service.js';
import type {
  VrpFundsConfirmationRequestDto,
  VrpInitiationDetailsDto,
  VrpSubmissionRequestDto,
  VrpSweepingAuthorisationRequestDto,
} from './payments.dto.js';
import { checkDomesticPayee } from './payments.service.js';
import { idempotencyConflict, type PaymentRecord, PaymentsStore } from './payments.store.js';
import { VrpLimitsService } from './vrp-limits.service.js';

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

const NOT_COUNTED = new Set(['FAILED', 'DECLINED', 'EXPIRED']);

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

/** Sweeping VRP (and the commercial VRP consents the hosted flow creates): consents, funds, payments. */
@Injectable()
export class VrpService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly consents: ConsentsStore,
    private readonly paymentConsents: PaymentConsentsService,
    private readonly institutions: InstitutionsCatalog,
    private readonly clock: SandboxClockService,
    private readonly store: PaymentsStore,
    private readonly lifecycle: PaymentLifecycleService,
    private readonly limits: VrpLimitsService,
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

  fundsConfirmation(ctx: SandboxContext, token: string | undefined, body: VrpFundsConfirmationRequestDto) {
    const consent = this.paymentConsents.vrpFromToken(ctx, token);
    this.institutions.requireFeature(consent.institutionId, 'VARIABLE_RECURRING_PAYMENT_FUNDS_CONFIRMATION');
    const details = consent.details as unknown as VrpConsentDetails;
    this.limits.checkCurrency(details.controlParameters, body.paymentAmount.currency);
    const currency = body.paymentAmount.currency;
    const minor = toMinor(body.paymentAmount.amount, currency);
    return {
      id: randomUUID(),
      reference: body.reference ?? details.initiationDetails.reference,
      paymentAmount: wireAmount(minor, body.paymentAmount.currency),
      fundsAvailable: {
        fundsAvailable: minor <= toMinor(PAYER_AVAILABLE_BALANCE, currency),
        fundsAvailableAt: this.clock.now().toISOString(),
      },
    };
  }

  /**
   * POST /variable-recurring-payments/payments: within the mandate (method, currency, max per payment,
   * every periodic limit) or 400; then the service's own funds check: above the payer's balance the
   * payment is created FAILED (INSUFFICIENT_FUNDS) and its event sent at once.
   */
  createPayment(
    ctx: SandboxContext,
    token: string | undefined,
    body: VrpSubmissionRequestDto,
  ): PaymentRecord {
    const consent = this.paymentConsents.vrpFromToken(ctx, token);
    const details = consent.details as unknown as VrpConsentDetails;
    this.requireVrpFeature(consent.institutionId, details.vrpType, 'create');
    const minor = toMinor(body.paymentAmount.amount, body.paymentAmount.currency);
    const existing = this.store.byIdempotencyId(ctx.application.id, body.paymentIdempotencyId);
    if (existing) {
      if (existing.consentId !== consent.id || existing.amountMinor !== minor) {
        throw idempotencyConflict(body.paymentIdempotencyId);
      }
      return existing;
    }
    this.checkMandate(consent, details, body, minor);

    const now = this.clock.now().toISOString();
    const payee = details.initiationDetails.payee;
    if (!payee) {
      throw SandboxError.invalidProperty('consent', 'The VRP consent names no payee to pay');
    }
    const payment = this.store.add({
      id: randomUUID(),
      kind: 'VRP',
      vrpType: details.vrpType,
      applicationId: ctx.application.id,
      consentId: consent.id,
      institutionId: consent.institutionId,
      institutionConsentId: consent.institutionConsentId,
      userUuid: consent.userUuid,
      applicationUserId: consent.applicationUserId,
      type: 'DOMESTIC_VARIABLE_RECURRING_PAYMENT',
      paymentIdempotencyId: body.paymentIdempotencyId,
      amountMinor: minor,
      currency: body.paymentAmount.currency,
      reference: details.initiationDetails.reference,
      payee,
      payer: details.initiationDetails.payer,
      psuAuthenticationMethod: body.psuAuthenticationMethod,
      psuInteractionType: body.psuInteractionType,
      initiationDetails: details.initiationDetails,
      status: 'PENDING',
      statusUpdatedAt: now,
      createdAt: now,
    });
    if (minor <= toMinor(PAYER_AVAILABLE_BALANCE, payment.currency)) return this.lifecycle.created(payment);
    return this.lifecycle.transition(
      payment,
      'FAILED',
      'INSUFFICIENT_FUNDS',
      `The payer's available balance (${formatMinor(toMinor(PAYER_AVAILABLE_BALANCE, payment.currency), payment.currency)}) does not cover the payment`,
    );
  }

  paymentDetails(ctx: SandboxContext, token: string | undefined, paymentId: string): PaymentRecord {
    const consent = this.paymentConsents.vrpFromToken(ctx, token);
    this.institutions.requireFeature(consent.institutionId, 'EXISTING_PAYMENTS_DETAILS');
    return this.lifecycle.observe(
      this.store.mustGetForConsent(ctx.application.id, paymentId, 'VRP', consent.id),
    );
  }

  private checkMandate(
    consent: ConsentRecord,
    details: VrpConsentDetails,
    body: VrpSubmissionRequestDto,
    minor: number,
  ): void {
    const cp = details.controlParameters;
    if (!cp.psuAuthenticationMethods.includes(body.psuAuthenticationMethod)) {
      throw SandboxError.invalidProperty(
        'psuAuthenticationMethod',
        `psuAuthenticationMethod must be one the consent allows: ${cp.psuAuthenticationMethods.join(', ')}`,
      );
    }
    if (details.vrpType === 'COMMERCIAL' && !body.psuInteractionType) {
      throw SandboxError.invalidProperty(
        'psuInteractionType',
        'psuInteractionType (PSU_PRESENT or PSU_NOT_PRESENT) is mandatory for commercial VRP payments',
      );
    }
    this.limits.checkCurrency(details.controlParameters, body.paymentAmount.currency);
    const nowMs = this.clock.nowMs();
    if (cp.validFrom && nowMs < Date.parse(cp.validFrom)) {
      throw SandboxError.forbidden(
        `VRP consent ${consent.id} is valid only from ${cp.validFrom}`,
        'CONSENT_NOT_YET_VALID',
      );
    }
    const anchorMs = Date.parse(cp.validFrom ?? consent.authorizedAt ?? consent.createdAt);
    const counted = this.store.ofConsent(consent.id).filter((p) => !NOT_COUNTED.has(p.status));
    this.limits.checkAmount(cp, counted, { minor, currency: body.paymentAmount.currency }, anchorMs, nowMs);
  }
}
