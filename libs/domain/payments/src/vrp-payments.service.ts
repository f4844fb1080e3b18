import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '#libs/core';
import { Prisma } from '#libs/database';
import { ConsentAccessService, currentVrpPeriod } from '#libs/domain/financial-data';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode } from '#libs/errors';
import { isUuid } from '#libs/ids';
import { LOGGER, type AppLogger } from '#libs/observability';
import { UpstreamError } from '#libs/upstream-client';
import { invalidField, parseAmount } from './payment-amount.js';
import { PaymentSubmitter } from './payment-submitter.service.js';
import { periodLimit } from './vrp-period-limit.js';
import { PaymentRepository, type PaymentView } from './payment.repository.js';
import { VrpPaymentRepository, type PeriodLimit } from './vrp-payment.repository.js';

interface UpstreamAmount {
  amount: number | string;
  currency: string;
}

interface ControlParameters {
  maxAmountPerPayment?: UpstreamAmount;
  periodicLimits?: { frequency: string; alignment?: string; totalMaxAmount: UpstreamAmount }[];
  validFrom?: string;
  psuAuthenticationMethods?: string[];
}

/** How long a payment request has to hand its payment to the bank before the status poll does it. */
const SUBMISSION_LEASE_SECONDS = 60;

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
    private readonly submitter: PaymentSubmitter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  async pay(
    caller: { merchantId: string; userId?: string },
    consentId: string,
    input: { amount: string; currency: string; reference?: string },
    now = this.clock.now(),
  ): Promise<PaymentView> {
    const work = await this.access.withVrpConsent(caller, consentId, undefined, async (call) => {
      const control = (call.consent.vrpControlParameters ?? {}) as ControlParameters;
      const amount = this.checkAmount(input, control);
      const anchor =
        Date.parse(control.validFrom ?? '') || call.consent.authorizedAt?.getTime() || now.getTime();
      const limits: PeriodLimit[] = [];
      (control.periodicLimits ?? []).forEach((limit, i) => {
        const period = currentVrpPeriod(limit.frequency, limit.alignment, anchor, now.getTime());
        if (!period) return;
        limits.push({
          name: `periodicLimits[${i}] (${limit.frequency})`,
          frequency: limit.frequency,
          totalMaxAmount: periodLimit(limit, period, anchor, input.currency),
          ...period,
        });
      });
      // Ours and the upstream's (at most 35 characters): a retried submission is the same payment.
      return this.reservations.reserve({
        merchantId: caller.merchantId,
        consentId,
        amount: amount.toString(),
        currency: input.currency,
        reference: input.reference ?? null,
        payee: null,
        paymentIdempotencyId: randomUUID().replace(/-/g, ''),
        limits,
        leaseSeconds: SUBMISSION_LEASE_SECONDS,
      });
    });
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

  async list(caller: { merchantId: string; userId?: string }, consentId: string): Promise<PaymentView[]> {
    if (!isUuid(consentId)) throw new DomainError(ErrorCode.NOT_FOUND, 'Consent not found.');
    return this.access.withVrpConsent(caller, consentId, undefined, () =>
      this.payments.listForConsent(caller.merchantId, consentId, 100),
    );
  }

  /** A decimal string of the consent's currency, at most its minor units, within the per-payment maximum. */
  private checkAmount(
    input: { amount: string; currency: string },
    control: ControlParameters,
  ): Prisma.Decimal {
    const amount = parseAmount(input, 'amount');
    const max = control.maxAmountPerPayment;
    const currency = max?.currency ?? control.periodicLimits?.[0]?.totalMaxAmount.currency;
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
