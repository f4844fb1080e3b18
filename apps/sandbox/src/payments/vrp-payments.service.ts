import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  type ConsentRecord,
  formatMinor,
  InstitutionsCatalog,
  SandboxClockService,
  type SandboxContext,
  SandboxError,
  toMinor,
  wireAmount,
} from '../core/index.js';
import { PaymentConsentsService, type VrpConsentDetails } from './payment-consents.service.js';
import { PAYER_AVAILABLE_BALANCE, PaymentLifecycleService } from './payment-lifecycle.service.js';
import { idempotencyConflict, madeUnder, type PaymentRecord, PaymentsStore } from './payments.store.js';
import type { VrpFundsConfirmationRequestDto, VrpSubmissionRequestDto } from './vrp.dto.js';
import { VrpConsentsService } from './vrp-consents.service.js';
import { VrpLimitsService } from './vrp-limits.service.js';

const NOT_COUNTED = new Set(['FAILED', 'DECLINED', 'EXPIRED']);

/**
 * What a VRP consent's token buys: funds confirmations, and payments within the mandate (its limits
 * counted over the consent's earlier payments), with their details read back.
 */
@Injectable()
export class VrpPaymentsService {
  constructor(
    private readonly paymentConsents: PaymentConsentsService,
    private readonly vrpConsents: VrpConsentsService,
    private readonly institutions: InstitutionsCatalog,
    private readonly clock: SandboxClockService,
    private readonly store: PaymentsStore,
    private readonly lifecycle: PaymentLifecycleService,
    private readonly limits: VrpLimitsService,
  ) {}

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
    this.vrpConsents.requireVrpFeature(consent.institutionId, details.vrpType, 'create');
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
      ...madeUnder(ctx, consent),
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
