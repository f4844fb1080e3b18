import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '#libs/core';
import {
  RedirectConsentsService,
  toConsentView,
  type ConsentView,
  type ConsentsCaller,
} from '#libs/domain/consents';
import { UPSTREAM_CLIENT, type UpstreamClient } from '#libs/upstream-client';
import {
  checkPayee,
  invalidField,
  parseAmount,
  wireAmount,
  wirePayee,
  type PayeeInput,
} from './payment-amount.js';

type Money = { amount: string; currency: string };

export interface VrpConsentInput {
  institutionId: string;
  payee: PayeeInput;
  reference?: string;
  redirectUrl: string;
  controlParameters: {
    maxAmountPerPayment: Money;
    periodicLimits: { frequency: string; alignment?: string; totalMaxAmount: Money }[];
    psuAuthenticationMethods?: string[];
    validFrom?: string;
    validTo?: string;
  };
}

/** The upstream's periodic-limit frequencies (its VrpPeriodicLimits). */
export const VRP_FREQUENCIES = ['DAILY', 'WEEKLY', 'EVERY_TWO_WEEKS', 'MONTHLY', 'YEARLY'];
export const VRP_ALIGNMENTS = ['CONSENT', 'CALENDAR'];

/** The control parameters as we keep them: every default filled in, amounts as exact decimal strings. */
export interface StoredControlParameters {
  psuAuthenticationMethods: string[];
  maxAmountPerPayment: Money;
  periodicLimits: { frequency: string; alignment: string; totalMaxAmount: Money }[];
  validFrom: string;
  validTo?: string;
}

/**
 * Sweeping VRP consents: the limits checked here first (one currency, sane amounts and dates), the
 * consent asked of the upstream with its defaults filled in, and the limits kept on the row, where every
 * payment under the consent is checked against them.
 */
@Injectable()
export class VrpConsentsService {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly redirect: RedirectConsentsService,
  ) {}

  async create(
    caller: ConsentsCaller,
    userId: string,
    input: VrpConsentInput,
    requestId?: string,
  ): Promise<ConsentView & { controlParameters: StoredControlParameters }> {
    const control = this.controlParameters(input.controlParameters);
    checkPayee(input.payee, 'payee');
    const initiationDetails = {
      payee: wirePayee(input.payee),
      ...(input.reference ? { reference: input.reference } : {}),
    };
    const consent = await this.redirect.createPaymentConsent(
      caller,
      userId,
      {
        kind: 'VRP_SWEEPING',
        institutionId: input.institutionId,
        redirectUrl: input.redirectUrl,
        expiresAt: control.validTo ? new Date(control.validTo) : null,
        vrpControlParameters: control,
        vrpInitiationDetails: initiationDetails,
      },
      (request, options) =>
        this.upstream.createSweepingVrpConsent(
          {
            ...request,
            controlParameters: {
              psuAuthenticationMethods: control.psuAuthenticationMethods,
              maxAmountPerPayment: wire(control.maxAmountPerPayment),
              periodicLimits: control.periodicLimits.map((l) => ({
                frequency: l.frequency,
                alignment: l.alignment,
                totalMaxAmount: wire(l.totalMaxAmount),
              })),
              validFrom: control.validFrom,
              ...(control.validTo ? { validTo: control.validTo } : {}),
            },
            initiationDetails,
          },
          options,
        ),
      requestId,
    );
    return { ...toConsentView(consent), controlParameters: control };
  }

  private controlParameters(input: VrpConsentInput['controlParameters']): StoredControlParameters {
    const field = 'controlParameters';
    parseAmount(input.maxAmountPerPayment, `${field}.maxAmountPerPayment`);
    const currency = input.maxAmountPerPayment.currency;
    if (input.periodicLimits.length === 0) {
      throw invalidField(`${field}.periodicLimits`, 'must name at least one limit');
    }
    const seen = new Set<string>();
    const periodicLimits = input.periodicLimits.map((limit, i) => {
      const at = `${field}.periodicLimits[${i}]`;
      if (!VRP_FREQUENCIES.includes(limit.frequency)) {
        throw invalidField(`${at}.frequency`, `must be one of ${VRP_FREQUENCIES.join(', ')}`);
      }
      const alignment = limit.alignment ?? 'CONSENT';
      if (!VRP_ALIGNMENTS.includes(alignment)) {
        throw invalidField(`${at}.alignment`, `must be one of ${VRP_ALIGNMENTS.join(', ')}`);
      }
      if (seen.has(limit.frequency)) throw invalidField(`${at}.frequency`, 'is named twice');
      seen.add(limit.frequency);
      parseAmount(limit.totalMaxAmount, `${at}.totalMaxAmount`);
      if (limit.totalMaxAmount.currency !== currency) {
        throw invalidField(`${at}.totalMaxAmount.currency`, `must be ${currency}, as maxAmountPerPayment`);
      }
      return { frequency: limit.frequency, alignment, totalMaxAmount: limit.totalMaxAmount };
    });
    const now = this.clock.now();
    const validFrom = input.validFrom ? date(input.validFrom, `${field}.validFrom`) : now;
    const validTo = input.validTo ? date(input.validTo, `${field}.validTo`) : null;
    if (validTo && (validTo <= validFrom || validTo <= now)) {
      throw invalidField(`${field}.validTo`, 'must be after validFrom and in the future');
    }
    return {
      psuAuthenticationMethods: input.psuAuthenticationMethods ?? ['SCA_NOT_REQUIRED'],
      maxAmountPerPayment: input.maxAmountPerPayment,
      periodicLimits,
      validFrom: validFrom.toISOString(),
      ...(validTo ? { validTo: validTo.toISOString() } : {}),
    };
  }
}

const wire = (money: Money) => wireAmount(money.amount, money.currency);

function date(value: string, field: string): Date {
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) throw invalidField(field, 'must be an ISO 8601 date-time');
  return parsed;
}
