import { Inject, Injectable } from '@nestjs/common';
import { type TenantCaller, tenantOf } from '#libs/context';
import { Prisma } from '#libs/database';
import { amountToApi, decimalToApi } from '#libs/domain/accounts';
import { type ConsentView, RedirectConsentsService, toConsentView } from '#libs/domain/consents';
import { ConsentAccessService, moneyToStrings } from '#libs/domain/financial-data';
import { CLOCK, type Clock } from '#libs/time';
import { type Amount, UPSTREAM_CLIENT, type UpstreamClient } from '#libs/upstream-client';
import {
  checkPayee,
  invalidField,
  parseAmount,
  type PayeeInput,
  wireAmount,
  wirePayee,
} from './payment-amount.js';
import {
  checkedControlParameters,
  type StoredControlParameters,
  type VrpControlInput,
} from './vrp-control-parameters.js';
import { VrpPaymentRepository } from './vrp-payment.repository.js';
import { periodLimitsAt, type VrpControl, vrpCurrency } from './vrp-period-limit.js';

type Money = { amount: string; currency: string };

export interface VrpConsentInput {
  institutionId: string;
  payee: PayeeInput;
  reference?: string;
  redirectUrl: string;
  controlParameters: VrpControlInput;
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
    private readonly access: ConsentAccessService,
    private readonly payments: VrpPaymentRepository,
  ) {}

  async create(
    caller: TenantCaller,
    userId: string,
    input: VrpConsentInput,
  ): Promise<ConsentView & { controlParameters: StoredControlParameters }> {
    const control = checkedControlParameters(input.controlParameters, this.clock.now());
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
        this.upstream.vrp.createSweepingConsent(
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
    );
    return { ...toConsentView(consent), controlParameters: control };
  }

  /**
   * The VRP consent (sweeping or commercial): its status as the upstream holds it, the control parameters payments are
   * checked against (ours, as set up; the upstream's for a consent we hold none for), and for each periodic
   * limit its current period, the period's limit, what was paid in it and what is left. Those come from
   * the limit check's own definition and query ({@link VrpPaymentRepository.limitUses}) at the database's
   * clock (`now` is for tests), so what is shown left is exactly what one more payment may be.
   */
  view(caller: TenantCaller, consentId: string, now?: Date) {
    return this.access.withVrpConsent(caller, consentId, async ({ consent, subApplication }) => {
      const read =
        consent.kind === 'VRP_COMMERCIAL'
          ? this.upstream.vrp.getCommercialConsent.bind(this.upstream.vrp)
          : this.upstream.vrp.getSweepingConsent.bind(this.upstream.vrp);
      const upstream = (
        await read(consent.upstreamConsentId, { subApplication, institutionId: consent.institutionId })
      ).data;
      const control = (consent.vrpControlParameters ?? upstream.controlParameters ?? {}) as VrpControl;
      const currency = vrpCurrency(control) ?? '';
      const { uses } = await this.payments.limitUses(tenantOf(caller), {
        consentId: consent.id,
        currency,
        limitsAt: (at) => periodLimitsAt(control, consent.authorizedAt, currency, at),
        ...(now ? { now } : {}),
      });
      const periodicLimits = (control.periodicLimits ?? []).map((limit, index) => {
        const use = uses.find((u) => u.limit.index === index);
        const inCurrency = (amount: string) => ({ amount, currency: limit.totalMaxAmount.currency });
        return {
          frequency: limit.frequency,
          alignment: limit.alignment ?? null,
          totalMaxAmount: money(limit.totalMaxAmount),
          currentPeriod: use
            ? { start: use.limit.start.toISOString(), end: use.limit.end.toISOString() }
            : null,
          limitInCurrentPeriod: use ? inCurrency(use.limit.totalMaxAmount) : null,
          paidInCurrentPeriod: use ? inCurrency(use.paid) : null,
          remainingInCurrentPeriod: use ? inCurrency(use.remaining) : null,
        };
      });
      return {
        id: consent.id,
        upstreamConsentId: consent.upstreamConsentId,
        institutionId: consent.institutionId,
        status: upstream.status ?? null,
        createdAt: upstream.createdAt ?? null,
        authorizedAt: upstream.authorizedAt ?? consent.authorizedAt?.toISOString() ?? null,
        controlParameters: {
          psuAuthenticationMethods: control.psuAuthenticationMethods ?? [],
          maxAmountPerPayment: control.maxAmountPerPayment ? money(control.maxAmountPerPayment) : null,
          validFrom: control.validFrom ?? null,
          validTo: control.validTo ?? null,
          periodicLimits,
        },
        initiationDetails: moneyToStrings(upstream.initiationDetails ?? null),
      };
    });
  }

  /** Whether the payer has the funds for a payment of `amount` (an amount as for a payment). */
  fundsConfirmation(caller: TenantCaller, consentId: string, input: { reference?: string; amount: Money }) {
    const amount = parseAmount(input.amount, 'amount');
    return this.access.withVrpConsent(caller, consentId, async ({ options, consent }) => {
      // As for a payment: funds confirmed in another currency say nothing about a payment this consent allows.
      const control = (consent.vrpControlParameters ?? {}) as VrpControl;
      const currency = vrpCurrency(control);
      if (currency && currency !== input.amount.currency) {
        throw invalidField('amount.currency', `must be the consent's currency, ${currency}`);
      }
      const result = (
        await this.upstream.vrp.confirmFunds(
          {
            ...(input.reference ? { reference: input.reference } : {}),
            paymentAmount: wireAmount(amount.toString(), input.amount.currency),
          },
          options,
        )
      ).data;
      return {
        id: result.id ?? null,
        reference: result.reference ?? input.reference ?? null,
        amount: result.paymentAmount ? money(result.paymentAmount) : input.amount,
        fundsAvailable: result.fundsAvailable.fundsAvailable,
        fundsAvailableAt: result.fundsAvailable.fundsAvailableAt ?? null,
      };
    });
  }
}

const wire = (money: Money) => wireAmount(money.amount, money.currency);

/** An amount as the API shows one, whether we stored it as a decimal string or the upstream sent a number. */
function money(a: Amount | { amount: number | string; currency: string }): Money {
  return {
    amount: typeof a.amount === 'number' ? amountToApi(a.amount) : decimalToApi(new Prisma.Decimal(a.amount)),
    currency: a.currency,
  };
}
