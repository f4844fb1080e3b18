import { Inject, Injectable } from '@nestjs/common';
import { type TenantCaller, tenantOf } from '#libs/context';
import { Prisma } from '#libs/database';
import { ConsentRepository, VRP_KINDS } from '#libs/domain/consents';
import { ConsentAccessService } from '#libs/domain/financial-data';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import { UpstreamError } from '#libs/upstream-client';
import { CLAIM_LEASE_SECONDS, PaymentRepository, type PaymentView } from './payment.repository.js';
import { invalidField, parseAmount, payeeOf, paymentIdempotencyIdFor } from './payment-amount.js';
import { PaymentSubmitterService } from './payment-submitter.service.js';
import { VrpPaymentRepository } from './vrp-payment.repository.js';
import { periodLimitsAt, type VrpControl, vrpCurrency } from './vrp-period-limit.js';

/**
 * Payments under a sweeping VRP consent: checked against the consent's own limits here, before the bank
 * is asked (per payment, and every periodic limit in its current period), with the check and the
 * reservation one atomic step, so payments racing on one consent cannot overspend together.
 */
@Injectable()
export class VrpPaymentsService {
  constructor(
    private readonly access: ConsentAccessService,
    private readonly reservations: VrpPaymentRepository,
    private readonly payments: PaymentRepository,
    private readonly submitter: PaymentSubmitterService,
    private readonly consents: ConsentRepository,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  /**
   * A payment under the consent for the merchant's Idempotency-Key: the same key is the same payment,
   * whatever became of the first request. `now` is for tests; the database's clock decides otherwise.
   */
  async pay(
    caller: TenantCaller,
    consentId: string,
    input: { amount: string; currency: string; reference?: string },
    idempotencyKey: string,
    now?: Date,
  ): Promise<PaymentView> {
    const reserved = await this.access.withVrpConsent(caller, consentId, async (call) => {
      const control = (call.consent.vrpControlParameters ?? {}) as VrpControl;
      const amount = this.checkAmount(input, control);
      return this.reservations.reserve(tenantOf(caller), {
        consentId,
        amount: amount.toString(),
        currency: input.currency,
        reference: input.reference ?? null,
        // The bank pays the consent's payee: a VRP payment cannot name another.
        payee: payeeOf(call.consent.vrpInitiationDetails),
        // Ours and the upstream's (at most 35 characters): every send of this payment carries it.
        paymentIdempotencyId: paymentIdempotencyIdFor(caller.merchantId, `vrp:${consentId}`, idempotencyKey),
        limitsAt: (at) => periodLimitsAt(control, call.consent.authorizedAt, input.currency, at),
        ...(now ? { now } : {}),
        leaseSeconds: CLAIM_LEASE_SECONDS,
      });
    });
    // A retry of a request whose payment exists: that payment, as it is now (the poll sends it if need be).
    if (reserved.existing) return this.payments.view(reserved.work.id);
    const work = reserved.work;
    try {
      const result = await this.submitter.submit(work);
      if (result.outcome === 'refused') {
        // The bank said no (its own limit check, a consent it no longer honours): nothing was paid.
        throw result.error
          ? mapUpstreamFailure(result.error, { resource: 'consent' })
          : new DomainError(ErrorCode.CONSENT_NOT_AUTHORISED, 'The consent holds no token any more.');
      }
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      // Maybe received, maybe not: the payment stays SUBMITTING and the status poll sends it again
      // under the same idempotency id; the merchant sees it and follows its status.
      this.logger.warn(
        { paymentId: work.id, upstreamKind: error.kind, upstreamTracingId: error.tracingId },
        'VRP payment: submission did not complete; the status poll takes it over',
      );
    }
    return this.payments.view(work.id);
  }

  /** The consent's payments, newest first, keyset-paged; readable after the consent has ended too. */
  async list(caller: TenantCaller, consentId: string, limit: number, beforeId?: string) {
    const consent = await this.consents.findOne(tenantOf(caller), consentId, caller.userId);
    if (!consent || !(VRP_KINDS as readonly string[]).includes(consent.kind)) {
      throw new DomainError(ErrorCode.NOT_FOUND, 'Consent not found.');
    }
    const { rows, more } = await this.payments.listForConsent(tenantOf(caller), consentId, limit, beforeId);
    return { payments: rows, nextBeforeId: more ? rows.at(-1)!.id : undefined };
  }

  /** A decimal string of the consent's currency, at most its minor units, within the per-payment maximum. */
  private checkAmount(input: { amount: string; currency: string }, control: VrpControl): Prisma.Decimal {
    const amount = parseAmount(input, 'amount');
    const max = control.maxAmountPerPayment;
    const currency = vrpCurrency(control);
    if (currency && currency !== input.currency) {
      throw invalidField('amount.currency', `must be the consent's currency, ${currency}`);
    }
    if (max && amount.gt(new Prisma.Decimal(String(max.amount)))) {
      throw new DomainError(
        ErrorCode.VRP_LIMIT_EXCEEDED,
        `The payment exceeds the consent's maximum per payment, ${max.amount} ${max.currency}.`,
        { details: [{ field: 'amount', issue: `exceeds maxAmountPerPayment: ${max.amount} at most` }] },
      );
    }
    return amount;
  }
}
