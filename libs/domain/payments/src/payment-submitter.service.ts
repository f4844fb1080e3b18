import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { describeWork, tenantOfRecord } from '#libs/context';
import { ConsentStateRepository } from '#libs/domain/consents';
import { type AppLogger, LOGGER } from '#libs/observability';
import {
  type Payee,
  type PsuHeaders,
  UPSTREAM_CLIENT,
  type UpstreamClient,
  UpstreamError,
} from '#libs/upstream-client';
import { PaymentRepository, type PaymentWork } from './payment.repository.js';
import { wireAmount } from './payment-amount.js';
import { PaymentCallOptionsService } from './payment-call-options.service.js';
import { PaymentStateRepository } from './payment-state.repository.js';
import { FINAL_PAYMENT_STATUSES, PaymentStatus } from './payment-status.js';

/**
 * What the bank said of a submission: taken (with its status now), refused (a first send: nothing moved),
 * or parked (a later send refused: the first may have been made, so a person must look; it keeps counting
 * against the consent's limits and a webhook may still settle it).
 */
export type SubmissionResult =
  | { outcome: 'submitted'; status: string }
  | { outcome: 'refused'; status: string; error: UpstreamError | null }
  | { outcome: 'parked'; status: string };

/** What the bank says of a payment, in the fields we keep. */
interface UpstreamPaymentState {
  id: string;
  status?: string;
  statusDetails?: unknown;
}

/** A refusal: the bank answered and said no (4xx other than a rate limit), so no money can have moved. */
const isRefusal = (error: unknown): error is UpstreamError =>
  error instanceof UpstreamError && error.status !== undefined && error.status < 500 && error.status !== 429;

/**
 * Sends payments to the bank and records what it says, for the callback, the VRP route and the status
 * poll alike. A submission always carries the payment's own `paymentIdempotencyId`, so sending it again
 * (after a crash, a timeout, a lost answer) is the same payment, never a second one.
 */
@Injectable()
export class PaymentSubmitterService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly consentState: ConsentStateRepository,
    private readonly callOptions: PaymentCallOptionsService,
    private readonly payments: PaymentRepository,
    private readonly state: PaymentStateRepository,
  ) {}

  /**
   * Submits (or re-submits) a payment. A refusal fails it (final, announced); a transport failure or a
   * 5xx leaves it SUBMITTING for the status poll to send again, and is thrown.
   */
  /** `psu`: the user's own headers, when they are present (the bank callback); none for a poll. */
  async submit(work: PaymentWork, psu: PsuHeaders = {}): Promise<SubmissionResult> {
    const sends = await this.payments.countSend(work.id);
    const found = await this.callOptions.forPayment(work);
    // Every later line of this job (the upstream client's retries too) names whose payment, and where.
    describeWork({
      merchantId: work.merchantId,
      institutionId: found?.institutionId,
      consentId: work.consentId,
      paymentId: work.id,
    });
    const options = found && { ...found, psu };
    if (!options) {
      const reason = 'The consent holds no token any more (revoked?)';
      return sends > 1 ? this.park(work, null, reason) : this.refuse(work, null, reason);
    }
    let answer: UpstreamPaymentState;
    try {
      answer =
        work.kind === 'SINGLE'
          ? (
              await this.upstream.payments.create(
                {
                  paymentIdempotencyId: work.paymentIdempotencyId,
                  type: 'DOMESTIC_PAYMENT',
                  amount: wireAmount(work.amount, work.currency),
                  payee: work.payee as Payee,
                  ...(work.reference ? { reference: work.reference } : {}),
                },
                options,
              )
            ).data
          : (
              await this.upstream.vrp.createPayment(
                {
                  paymentIdempotencyId: work.paymentIdempotencyId,
                  psuAuthenticationMethod: options.psuAuthenticationMethod,
                  // Commercial VRP must say whether the user is there; the merchant pays without them.
                  ...(options.commercial ? { psuInteractionType: 'PSU_NOT_PRESENT' } : {}),
                  paymentAmount: wireAmount(work.amount, work.currency),
                  ...(work.reference ? { reference: work.reference } : {}),
                },
                options,
              )
            ).data;
    } catch (error) {
      if (isRefusal(error)) {
        // A send before this one may have been made (its answer lost), ours or the client's own retry
        // within this call: a refusal now proves nothing.
        return sends > 1 || error.attemptsInDoubt > 0
          ? this.park(work, error, error.message)
          : this.refuse(work, error, error.message);
      }
      // Not in flight any more: the status poll sends it again (same idempotency id) on its schedule.
      await this.payments.submitLater(work.id, this.config.tuning.paymentStatusPollSeconds);
      throw error;
    }
    // Single use (upstream spec §1, rule 3): once the bank has the payment, its consent is spent here too.
    if (work.kind === 'SINGLE') await this.consentState.markConsumed(tenantOfRecord(work), work.consentId);
    return { outcome: 'submitted', status: await this.record(work, answer) };
  }

  /** Reads the payment's status from the bank and records it; answers the status now. */
  async refresh(work: PaymentWork & { upstreamPaymentId: string }): Promise<string> {
    const options = await this.callOptions.forPayment(work);
    if (!options) {
      // Nothing to ask the bank with (the consent's token is gone): its webhook is the only way left.
      this.logger.warn({ paymentId: work.id }, 'payment status: no consent token to read it with');
      await this.state.holdForReview(work.id, 'The consent holds no token to read the status with');
      return work.status;
    }
    const answer =
      work.kind === 'SINGLE'
        ? (await this.upstream.payments.getDetails(work.upstreamPaymentId, options)).data.payments.find(
            (p) => p.id === work.upstreamPaymentId,
          )
        : (await this.upstream.vrp.getPaymentDetails(work.upstreamPaymentId, options)).data;
    if (!answer) throw new Error(`The upstream's details do not list payment ${work.upstreamPaymentId}`);
    return this.record(work, answer);
  }

  /** A final status is applied once, with its event; any other is noted with the next check. */
  private async record(work: PaymentWork, answer: UpstreamPaymentState): Promise<string> {
    const status = String(answer.status ?? PaymentStatus.Pending);
    const final = FINAL_PAYMENT_STATUSES.includes(status);
    await this.payments.recordSubmitted(
      work.id,
      answer.id,
      final ? PaymentStatus.Pending : status,
      answer,
      this.config.tuning.paymentStatusPollSeconds,
    );
    if (final) {
      await this.state.applyFinalStatusById(work.id, {
        status,
        statusDetails: answer.statusDetails ?? null,
        reason: 'bank',
      });
    }
    return status;
  }

  private async park(
    work: PaymentWork,
    error: UpstreamError | null,
    reason: string,
  ): Promise<SubmissionResult> {
    this.logger.error(
      {
        paymentId: work.id,
        merchantId: work.merchantId,
        upstreamKind: error?.kind,
        upstreamTracingId: error?.tracingId ?? error?.earlierTracingId,
        reason,
      },
      'payment: a repeated send was refused, and an earlier one may have been made; left SUBMITTING for a person to check with the bank',
    );
    await this.state.holdForReview(work.id, `A repeated send was refused: ${reason}`);
    return { outcome: 'parked', status: work.status };
  }

  private async refuse(
    work: PaymentWork,
    error: UpstreamError | null,
    reason: string,
  ): Promise<SubmissionResult> {
    this.logger.warn(
      {
        paymentId: work.id,
        merchantId: work.merchantId,
        upstreamKind: error?.kind,
        upstreamTracingId: error?.tracingId,
        reason,
      },
      'payment refused at submission',
    );
    await this.state.applyFinalStatusById(work.id, {
      status: PaymentStatus.Failed,
      statusDetails: { reason: reason.slice(0, 500), ...(error ? { code: error.kind } : {}) },
      reason: `refused_${error ? error.kind.toLowerCase() : 'no_token'}`,
    });
    return { outcome: 'refused', status: PaymentStatus.Failed, error };
  }
}
