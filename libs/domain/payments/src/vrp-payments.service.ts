import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '#libs/core';
import { Prisma } from '#libs/database';
import { ConsentAccessService, currentVrpPeriod } from '#libs/domain/financial-data';
import { mapUpstreamFailure } from '#libs/domain/upstream-failures';
import { DomainError, ErrorCode } from '#libs/errors';
import { isUuid } from '#libs/ids';
import { UPSTREAM_CLIENT, UpstreamError, type UpstreamClient } from '#libs/upstream-client';
import { VrpPaymentRepository, type PeriodLimit, type VrpPaymentView } from './vrp-payment.repository.js';

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

const DAY_MS = 86_400_000;

/** Minor units per currency; anything not listed takes two. */
const DECIMALS: Readonly<Record<string, number>> = { JPY: 0, KRW: 0, BHD: 3, KWD: 3, JOD: 3 };

const invalid = (field: string, issue: string) =>
  new DomainError(ErrorCode.VALIDATION_FAILED, `${field} ${issue}`, { details: [{ field, issue }] });

/**
 * Payments under a sweeping VRP consent: checked against the consent's own limits here, before the bank
 * is asked (per payment, and every periodic limit in its current period), with the check and the
 * reservation one atomic step, so payments racing on one consent cannot overspend together.
 */
@Injectable()
export class VrpPaymentsService {
  constructor(
    private readonly access: ConsentAccessService,
    private readonly payments: VrpPaymentRepository,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async pay(
    caller: { merchantId: string; userId?: string },
    consentId: string,
    input: { amount: string; currency: string; reference?: string },
    now = this.clock.now(),
  ): Promise<VrpPaymentView> {
    return this.access.withVrpConsent(caller, consentId, undefined, async (call) => {
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
          totalMaxAmount: this.limitFor(limit, period, anchor, input.currency),
          ...period,
        });
      });
      // Ours and the upstream's (at most 35 characters): a retried submission is the same payment.
      const paymentIdempotencyId = randomUUID().replace(/-/g, '');
      const reserved = await this.payments.reserve({
        merchantId: caller.merchantId,
        consentId,
        amount: amount.toString(),
        currency: input.currency,
        reference: input.reference ?? null,
        payee: null,
        paymentIdempotencyId,
        limits,
      });
      try {
        const { data } = await this.upstream.createVrpPayment(
          {
            paymentIdempotencyId,
            psuAuthenticationMethod: control.psuAuthenticationMethods?.[0] ?? 'SCA_NOT_REQUIRED',
            paymentAmount: { amount: amount.toNumber(), currency: input.currency },
            ...(input.reference ? { reference: input.reference } : {}),
          },
          call.options,
        );
        return await this.payments.submitted(reserved.id, data.id, String(data.status ?? 'PENDING'), data);
      } catch (error) {
        // A refusal (4xx) released the money; anything else may have moved it: it stays reserved.
        if (error instanceof UpstreamError && error.status !== undefined && error.status < 500) {
          await this.payments.refused(reserved.id, error.message);
        }
        throw error instanceof UpstreamError ? mapUpstreamFailure(error, { resource: 'consent' }) : error;
      }
    });
  }

  async list(caller: { merchantId: string; userId?: string }, consentId: string): Promise<VrpPaymentView[]> {
    if (!isUuid(consentId)) throw new DomainError(ErrorCode.NOT_FOUND, 'Consent not found.');
    return this.access.withVrpConsent(caller, consentId, undefined, () =>
      this.payments.listForConsent(caller.merchantId, consentId, 100),
    );
  }

  /**
   * The limit of the current period: the whole `totalMaxAmount`, except in a CALENDAR-aligned first period
   * (the one holding the consent's anchor), which is pro-rated to the days left in it, the anchor's day
   * included, rounded down to the currency's minor unit, as the upstream documents.
   */
  private limitFor(
    limit: { alignment?: string; totalMaxAmount: UpstreamAmount },
    period: { start: Date; end: Date },
    anchorMs: number,
    currency: string,
  ): string {
    const total = new Prisma.Decimal(String(limit.totalMaxAmount.amount));
    const [start, end] = [period.start.getTime(), period.end.getTime()];
    if (limit.alignment !== 'CALENDAR' || anchorMs < start || anchorMs >= end) return total.toString();
    const totalDays = Math.round((end - start) / DAY_MS);
    const remainingDays = Math.round((end - Math.floor(anchorMs / DAY_MS) * DAY_MS) / DAY_MS);
    return total
      .mul(remainingDays)
      .div(totalDays)
      .toDecimalPlaces(DECIMALS[currency] ?? 2, Prisma.Decimal.ROUND_DOWN)
      .toString();
  }

  /** A decimal string of the consent's currency, at most its minor units, within the per-payment maximum. */
  private checkAmount(
    input: { amount: string; currency: string },
    control: ControlParameters,
  ): Prisma.Decimal {
    if (!/^\d{1,13}(\.\d{1,6})?$/.test(input.amount))
      invalid('amount.amount', 'must be a decimal string such as "12.34"');
    const decimals = input.amount.split('.')[1]?.length ?? 0;
    if (decimals > (DECIMALS[input.currency] ?? 2)) {
      throw invalid('amount.amount', `has more decimals than ${input.currency} allows (never rounded)`);
    }
    const amount = new Prisma.Decimal(input.amount);
    if (amount.lte(0)) throw invalid('amount.amount', 'must be more than zero');
    const max = control.maxAmountPerPayment;
    if (max && max.currency !== input.currency) {
      throw invalid('amount.currency', `must be the consent's currency, ${max.currency}`);
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
