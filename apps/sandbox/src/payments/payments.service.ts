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
  toMinor,
} from '../core/index.js';
import {
  type PaymentConsentDetails,
  PaymentConsentsService,
  SINGLE_PAYMENT_SCOPE,
} from './payment-consents.service.js';
import { PaymentLifecycleService } from './payment-lifecycle.service.js';
import type { PayeeDto, PaymentAuthorisationRequestDto, PaymentRequestDto } from './payments.dto.js';
import { idempotencyConflict, madeUnder, type PaymentRecord, PaymentsStore } from './payments.store.js';

/** The feature each payment type needs to be initiated and created (upstream feature names). */
const TYPE_FEATURES: Record<string, [initiate: string, create: string]> = {
  DOMESTIC_PAYMENT: ['INITIATE_DOMESTIC_SINGLE_PAYMENT', 'CREATE_DOMESTIC_SINGLE_PAYMENT'],
  DOMESTIC_INSTANT_PAYMENT: [
    'INITIATE_DOMESTIC_SINGLE_INSTANT_PAYMENT',
    'CREATE_DOMESTIC_SINGLE_INSTANT_PAYMENT',
  ],
  DOMESTIC_VARIABLE_RECURRING_PAYMENT: [
    'INITIATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT',
    'CREATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT',
  ],
  DOMESTIC_SCHEDULED_PAYMENT: ['INITIATE_DOMESTIC_SCHEDULED_PAYMENT', 'CREATE_DOMESTIC_SCHEDULED_PAYMENT'],
  DOMESTIC_PERIODIC_PAYMENT: ['INITIATE_DOMESTIC_PERIODIC_PAYMENT', 'CREATE_DOMESTIC_PERIODIC_PAYMENT'],
  INTERNATIONAL_PAYMENT: ['INITIATE_INTERNATIONAL_SINGLE_PAYMENT', 'CREATE_INTERNATIONAL_SINGLE_PAYMENT'],
  INTERNATIONAL_SCHEDULED_PAYMENT: [
    'INITIATE_INTERNATIONAL_SCHEDULED_PAYMENT',
    'CREATE_INTERNATIONAL_SCHEDULED_PAYMENT',
  ],
  INTERNATIONAL_PERIODIC_PAYMENT: [
    'INITIATE_INTERNATIONAL_PERIODIC_PAYMENT',
    'CREATE_INTERNATIONAL_PERIODIC_PAYMENT',
  ],
  BULK_PAYMENT: ['INITIATE_BULK_PAYMENT', 'CREATE_BULK_PAYMENT'],
};

/**
 * A UK domestic payee needs a sort code (6 digits) and an account number (8 digits), as at a real
 * UK bank; the sandbox checks it so merchants see the error before production does.
 */
export function checkDomesticPayee(payee: PayeeDto | undefined, parameter: string): void {
  const ids = payee?.accountIdentifications ?? [];
  const sortCode = ids.find((i) => i.type === 'SORT_CODE')?.identification;
  const accountNumber = ids.find((i) => i.type === 'ACCOUNT_NUMBER')?.identification;
  if (!sortCode || !/^\d{6}$/.test(sortCode.replace(/-/g, ''))) {
    throw SandboxError.invalidProperty(
      `${parameter}.accountIdentifications`,
      'A domestic payee needs a SORT_CODE account identification of 6 digits',
    );
  }
  if (!accountNumber || !/^\d{8}$/.test(accountNumber)) {
    throw SandboxError.invalidProperty(
      `${parameter}.accountIdentifications`,
      'A domestic payee needs an ACCOUNT_NUMBER account identification of 8 digits',
    );
  }
}

function sameIdentifications(
  a: { type: string; identification: string }[],
  b: { type: string; identification: string }[],
): boolean {
  const key = (ids: { type: string; identification: string }[]) =>
    ids
      .map((i) => `${i.type}:${i.identification.replace(/[\s-]/g, '')}`)
      .sort()
      .join('|');
  return key(a) === key(b);
}

@Injectable()
export class PaymentsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly consents: ConsentsStore,
    private readonly paymentConsents: PaymentConsentsService,
    private readonly institutions: InstitutionsCatalog,
    private readonly clock: SandboxClockService,
    private readonly store: PaymentsStore,
    private readonly lifecycle: PaymentLifecycleService,
  ) {}

  createAuthorisation(
    ctx: SandboxContext,
    body: PaymentAuthorisationRequestDto,
    headers: Record<string, string | string[] | undefined> = {},
  ): ConsentRecord {
    const request = body.paymentRequest;
    const [initiate] = TYPE_FEATURES[request.type];
    const institution = this.institutions.requireFeature(body.institutionId, initiate);
    this.institutions.requirePsuHeaders(
      institution,
      { method: 'POST', path: '/payment-auth-requests' },
      headers,
    );
    if (request.type === 'DOMESTIC_PAYMENT') checkDomesticPayee(request.payee, 'paymentRequest.payee');
    const user = this.paymentConsents.resolveUser(ctx, body);
    const id = randomUUID();
    const details: PaymentConsentDetails = {
      paymentRequest: {
        paymentIdempotencyId: request.paymentIdempotencyId,
        type: request.type,
        reference: request.reference,
        contextType: request.contextType,
        amount: normaliseWireAmount(request.amount),
        payee: request.payee,
        payer: request.payer,
      },
    };
    return this.consents.create({
      id,
      kind: 'PAYMENT',
      applicationId: ctx.application.id,
      userUuid: user.uuid,
      applicationUserId: user.applicationUserId,
      referenceId: user.referenceId,
      institutionId: body.institutionId,
      status: 'AWAITING_AUTHORIZATION',
      featureScope: SINGLE_PAYMENT_SCOPE,
      state: randomUUID().replace(/-/g, ''),
      callback: callbackOf(body),
      oneTimeToken: body.oneTimeToken ?? false,
      forwardParameters: body.forwardParameters,
      authorisationUrl: authorisationUrlFor(this.config.sandbox.publicUrl, id),
      details: details as unknown as Record<string, unknown>,
    });
  }

  /**
   * POST /payments. Replaying a paymentIdempotencyId returns the payment already made with it (even
   * with the now consumed consent); otherwise the consent must be an unused, authorised PAYMENT consent
   * whose authorised request the body repeats.
   */
  create(ctx: SandboxContext, token: string | undefined, body: PaymentRequestDto): PaymentRecord {
    const seen = this.paymentConsents.peek(ctx, token);
    const existing = this.store.byIdempotencyId(ctx.application.id, body.paymentIdempotencyId);
    if (seen?.kind === 'PAYMENT' && seen.status === 'CONSUMED' && existing?.consentId === seen.id) {
      return this.replay(existing, body);
    }
    const consent = this.consents.fromToken(ctx, token, ['PAYMENT']);
    const [, createFeature] = TYPE_FEATURES[body.type];
    this.institutions.requireFeature(consent.institutionId, createFeature);
    if (existing) return this.replay(existing, body);
    this.checkMatchesConsent(consent, body);

    const now = this.clock.now().toISOString();
    const payment = this.store.add({
      id: randomUUID(),
      kind: 'SINGLE',
      ...madeUnder(ctx, consent),
      type: body.type,
      paymentIdempotencyId: body.paymentIdempotencyId,
      amountMinor: toMinor(body.amount.amount, body.amount.currency),
      currency: body.amount.currency,
      reference: body.reference,
      contextType: body.contextType,
      payee: body.payee,
      payer: body.payer,
      status: 'PENDING',
      statusUpdatedAt: now,
      createdAt: now,
    });
    // Single use (upstream spec §1, rule 3): the next POST /payments with this token is refused.
    consent.status = 'CONSUMED';
    consent.consumedAt = now;
    this.consents.update(consent);
    return this.lifecycle.created(payment);
  }

  /** GET /payments/{id}/details: the consent that made the payment, consumed or not, may read it. */
  details(ctx: SandboxContext, token: string | undefined, paymentId: string): PaymentRecord {
    const seen = this.paymentConsents.peek(ctx, token);
    const consent =
      seen?.kind === 'PAYMENT' && seen.status === 'CONSUMED'
        ? seen
        : this.consents.fromToken(ctx, token, ['PAYMENT']);
    this.institutions.requireFeature(consent.institutionId, 'EXISTING_PAYMENTS_DETAILS');
    return this.lifecycle.observe(
      this.store.mustGetForConsent(ctx.application.id, paymentId, 'SINGLE', consent.id),
    );
  }

  private replay(existing: PaymentRecord, body: PaymentRequestDto): PaymentRecord {
    const sameAmount =
      existing.amountMinor === toMinor(body.amount.amount, body.amount.currency) &&
      existing.currency === body.amount.currency;
    if (existing.kind !== 'SINGLE' || !sameAmount) {
      throw idempotencyConflict(body.paymentIdempotencyId);
    }
    return existing;
  }

  private checkMatchesConsent(consent: ConsentRecord, body: PaymentRequestDto): void {
    const authorised = (consent.details as unknown as PaymentConsentDetails | undefined)?.paymentRequest;
    // A consent re-created from its token after a restart no longer knows its request: accept the body.
    if (!authorised) return;
    const mismatch = (parameter: string, expected: string, given: string) =>
      SandboxError.invalidProperty(
        parameter,
        `${parameter} does not match the authorised payment request (authorised: ${expected}, given: ${given})`,
      );
    if (body.paymentIdempotencyId !== authorised.paymentIdempotencyId) {
      throw mismatch('paymentIdempotencyId', authorised.paymentIdempotencyId, body.paymentIdempotencyId);
    }
    if (body.type !== authorised.type) throw mismatch('type', authorised.type, body.type);
    const authorisedMinor = toMinor(authorised.amount.amount, authorised.amount.currency);
    const givenMinor = toMinor(body.amount.amount, body.amount.currency);
    if (authorisedMinor !== givenMinor || authorised.amount.currency !== body.amount.currency) {
      throw mismatch(
        'amount',
        formatMinor(authorisedMinor, authorised.amount.currency),
        formatMinor(givenMinor, body.amount.currency),
      );
    }
    if (body.payee.name !== authorised.payee.name) {
      throw mismatch('payee.name', authorised.payee.name, body.payee.name);
    }
    if (!sameIdentifications(body.payee.accountIdentifications, authorised.payee.accountIdentifications)) {
      throw mismatch('payee.accountIdentifications', 'the authorised account', 'a different account');
    }
  }
}
