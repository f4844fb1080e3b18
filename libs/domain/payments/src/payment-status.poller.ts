import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { withWork } from '#libs/context';
import { ConsentStatus } from '#libs/domain/consents';
import { dependencyFailureOf, retryWhileUnavailable } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import { CLOCK, type Clock } from '#libs/time';
import { UpstreamError } from '#libs/upstream-client';
import { CLAIM_LEASE_SECONDS, PaymentRepository, type PaymentWork } from './payment.repository.js';
import { PaymentStateRepository } from './payment-state.repository.js';
import { FINAL_PAYMENT_STATUSES, PaymentStatus } from './payment-status.js';
import { PaymentSubmitterService } from './payment-submitter.service.js';

/** How many due payments one round claims, and how many it asks the bank about at once. */
const ROUND_SIZE = 50;
const PARALLEL = 10;
/** A payment still not final after this long is left alone (and says so); a person should look at it. */
const GIVE_UP_AFTER_MS = 7 * 86_400_000;
/**
 * A claim Postgres refused to hand back is tried again until this long before the lease that the round
 * took could end (the clocks of this process and Postgres may differ by that much).
 */
const RELEASE_MARGIN_MS = 30_000;

export interface PollRoundResult {
  checked: number;
  submitted: number;
  finalised: number;
  failed: number;
}

/**
 * The fallback behind the upstream's payment webhooks: every payment without a final status is looked at
 * on its schedule (soon after it starts, then less often), and one the bank never got (a crash or an
 * outage between our row and the bank's answer) is submitted again under the same idempotency id. Any
 * number of workers may run rounds at once: each claims its own payments.
 */
@Injectable()
export class PaymentStatusPoller {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly payments: PaymentRepository,
    private readonly submitter: PaymentSubmitterService,
    private readonly state: PaymentStateRepository,
  ) {}

  async pollDue(): Promise<PollRoundResult> {
    // Every claim this round takes is leased from now on at the earliest.
    const leasedFrom = this.clock.now().getTime();
    // A round of 50, ten at a time, fits the claim's lease even when every call runs to its deadline.
    const due = await this.payments.claimDueChecks(ROUND_SIZE);
    const result: PollRoundResult = { checked: due.length, submitted: 0, finalised: 0, failed: 0 };
    for (let i = 0; i < due.length; i += PARALLEL) {
      // Each payment in a context of its own: its log lines and upstream calls name it, not a neighbour.
      const subject = (work: PaymentWork) => ({
        merchantId: work.merchantId,
        consentId: work.consentId,
        paymentId: work.id,
      });
      await Promise.all(
        due
          .slice(i, i + PARALLEL)
          .map((work) => withWork(subject(work), () => this.check(work, result, leasedFrom))),
      );
    }
    return result;
  }

  /**
   * A single payment still awaiting when its authorisation window closed: approved (the callback died
   * before sending it), it is sent now; otherwise it ends EXPIRED, only if still awaiting.
   */
  private async awaited(work: PaymentWork, result: PollRoundResult): Promise<void> {
    if (work.consentStatus === ConsentStatus.Authorised) {
      const claimed = await this.payments.claimAwaitingById(work.id);
      if (!claimed) return;
      const submitted = await this.submitter.submit(claimed);
      result.submitted += 1;
      if (submitted.outcome === 'refused') result.finalised += 1;
      return;
    }
    const ended = await this.state.applyFinalStatusById(
      work.id,
      {
        status: PaymentStatus.Expired,
        statusDetails: { reason: 'The user did not authorise the payment in time' },
        reason: 'not_authorised',
      },
      { onlyFrom: PaymentStatus.AwaitingAuthorisation },
    );
    if (ended) result.finalised += 1;
  }

  private async check(work: PaymentWork, result: PollRoundResult, leasedFrom: number): Promise<void> {
    if (this.clock.now().getTime() - work.createdAt.getTime() > GIVE_UP_AFTER_MS) {
      this.logger.warn(
        { paymentId: work.id, status: work.status },
        'payment status: no final status after 7 days',
      );
      await this.state.holdForReview(work.id, 'No final status after 7 days');
      return;
    }
    try {
      if (work.status === PaymentStatus.AwaitingAuthorisation) {
        await this.awaited(work, result);
        return;
      }
      if (work.upstreamPaymentId === null || work.status === PaymentStatus.Submitting) {
        const submitted = await this.submitter.submit(work);
        result.submitted += 1;
        if (submitted.outcome === 'refused') result.finalised += 1;
        return;
      }
      const status = await this.submitter.refresh({ ...work, upstreamPaymentId: work.upstreamPaymentId });
      if (FINAL_PAYMENT_STATUSES.includes(status)) result.finalised += 1;
    } catch (error) {
      // One payment's trouble must not stop the round; it is looked at again on its schedule.
      result.failed += 1;
      await this.checkLater(work.id, leasedFrom);
      this.logger.warn(
        {
          paymentId: work.id,
          err: error instanceof UpstreamError ? undefined : error,
          upstreamKind: error instanceof UpstreamError ? error.kind : undefined,
          upstreamTracingId: error instanceof UpstreamError ? error.tracingId : undefined,
        },
        'payment status check failed; tried again later',
      );
    }
  }

  /**
   * Hands the claim back: the payment's next check on its usual schedule. When Postgres is what failed,
   * that cannot be done now either; it is tried every second until Postgres is back or the round's lease
   * is about to end anyway, so an outage delays a payment's status by the outage, not by the lease.
   */
  private async checkLater(paymentId: string, leasedFrom: number): Promise<void> {
    const release = () => this.payments.checkLater(paymentId, this.config.tuning.paymentStatusPollSeconds);
    const leftToItsLease = (error: unknown) =>
      this.logger.warn(
        { paymentId, err: error },
        'payment status: next check not rescheduled; its lease ends it',
      );
    try {
      await release();
    } catch (error) {
      if (!dependencyFailureOf(error)) return leftToItsLease(error);
      retryWhileUnavailable(release, {
        giveUpAt: leasedFrom + CLAIM_LEASE_SECONDS * 1000 - RELEASE_MARGIN_MS,
        onGiveUp: leftToItsLease,
      });
    }
  }
}
