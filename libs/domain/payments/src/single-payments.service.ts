import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { type MerchantId, type TenantCaller, tenantOf } from '#libs/context';
import {
  CONSENT_STATE_TTL_SECONDS,
  ConsentCallbackHooks,
  ConsentStatus,
  RedirectConsentsService,
  type StoredConsent,
} from '#libs/domain/consents';
import { type AppLogger, LOGGER } from '#libs/observability';
import { type PsuHeaders, UPSTREAM_CLIENT, type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import { CLAIM_LEASE_SECONDS, PaymentRepository, type PaymentView } from './payment.repository.js';
import {
  checkPayee,
  parseAmount,
  type PayeeInput,
  paymentIdempotencyIdFor,
  wireAmount,
  wirePayee,
} from './payment-amount.js';
import { PaymentStateRepository } from './payment-state.repository.js';
import { PaymentStatus } from './payment-status.js';
import { PaymentSubmitterService } from './payment-submitter.service.js';

export interface SinglePaymentInput {
  institutionId: string;
  amount: { amount: string; currency: string };
  payee: PayeeInput;
  reference: string;
  redirectUrl: string;
}

/**
 * Single payments: a single-use payment consent per payment, authorised by the user at the bank through
 * the redirect flow; the callback makes the payment exactly once (a claimed, single-use step, and the
 * same idempotency id on every submission) and sends the browser back with its status.
 */
@Injectable()
export class SinglePaymentsService implements OnModuleInit {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly redirect: RedirectConsentsService,
    private readonly hooks: ConsentCallbackHooks,
    private readonly payments: PaymentRepository,
    private readonly state: PaymentStateRepository,
    private readonly submitter: PaymentSubmitterService,
  ) {}

  onModuleInit(): void {
    this.hooks.register('PAYMENT', {
      authorised: (tenant, consent, psu) => this.execute(tenant, consent, psu),
      failed: (tenant, consent, status) => this.abandon(tenant, consent, status),
    });
  }

  /**
   * A single payment for the merchant's Idempotency-Key: the same key is the same payment, whatever
   * became of the first request (its payment is answered again, never a second one made).
   */
  async create(
    caller: TenantCaller,
    userId: string,
    input: SinglePaymentInput,
    idempotencyKey: string,
    psu: PsuHeaders = {},
  ): Promise<PaymentView> {
    const amount = parseAmount(input.amount, 'amount');
    checkPayee(input.payee, 'payee');
    // Ours and the upstream's (at most 35 characters): every submission of this payment carries it.
    const paymentIdempotencyId = paymentIdempotencyIdFor(caller.merchantId, 'single', idempotencyKey);
    const existing = await this.payments.findByIdempotencyId(tenantOf(caller), paymentIdempotencyId);
    if (existing) return existing;
    const consent = await this.redirect.createPaymentConsent(
      caller,
      userId,
      { kind: 'PAYMENT', institutionId: input.institutionId, redirectUrl: input.redirectUrl, psu },
      (request, options) =>
        this.upstream.payments.createAuthorisation(
          {
            ...request,
            paymentRequest: {
              paymentIdempotencyId,
              type: 'DOMESTIC_PAYMENT',
              amount: wireAmount(amount.toString(), input.amount.currency),
              payee: wirePayee(input.payee),
              reference: input.reference,
            },
          },
          options,
        ),
    );
    return this.payments.createSingle(tenantOf(caller), {
      consentId: consent.id,
      paymentIdempotencyId,
      amount: amount.toString(),
      currency: input.amount.currency,
      reference: input.reference,
      payee: wirePayee(input.payee),
      // Our signed state dies after this: no callback can complete the payment later.
      authorisationWindowSeconds: CONSENT_STATE_TTL_SECONDS + 300,
    });
  }

  /** The payment of a consent the user has just approved: made once, whatever calls back twice. */
  private async execute(
    tenant: MerchantId,
    consent: StoredConsent,
    psu?: PsuHeaders,
  ): Promise<Record<string, string>> {
    const work = await this.payments.claimSingleSubmission(tenant, consent.id, CLAIM_LEASE_SECONDS);
    if (!work) {
      const existing = await this.payments.singleOfConsent(tenant, consent.id);
      return existing ? { paymentId: existing.id, status: existing.status } : {};
    }
    try {
      const result = await this.submitter.submit(work, psu);
      return {
        paymentId: work.id,
        status: result.status,
        ...(result.outcome === 'refused' ? { error: 'payment_refused' } : {}),
      };
    } catch (error) {
      // Not refused, maybe not received: the status poll submits it again under the same idempotency id.
      this.logger.warn(
        {
          paymentId: work.id,
          upstreamKind: error instanceof UpstreamError ? error.kind : undefined,
          upstreamTracingId: error instanceof UpstreamError ? error.tracingId : undefined,
        },
        'single payment: submission did not complete; the status poll takes it over',
      );
      return { paymentId: work.id, status: PaymentStatus.Submitting };
    }
  }

  /** The user did not approve (or the exchange failed): the payment ends unpaid, announced once. */
  private async abandon(
    tenant: MerchantId,
    consent: StoredConsent,
    status: string,
  ): Promise<Record<string, string>> {
    const payment = await this.payments.singleOfConsent(tenant, consent.id);
    if (!payment) return {};
    await this.state.applyFinalStatusById(
      payment.id,
      {
        status: status === ConsentStatus.Rejected ? PaymentStatus.Rejected : PaymentStatus.Failed,
        statusDetails: { reason: `The payment's consent ended ${status} before it was authorised` },
        reason: 'not_authorised',
      },
      { onlyFrom: PaymentStatus.AwaitingAuthorisation },
    );
    return { paymentId: payment.id };
  }
}
