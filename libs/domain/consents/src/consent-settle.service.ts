import { Inject, Injectable } from '@nestjs/common';
import { describeWork, type MerchantId } from '#libs/context';
import { dependencyFailureOf } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';
import {
  type Consent as UpstreamConsent,
  type PsuHeaders,
  UPSTREAM_CLIENT,
  type UpstreamClient,
  UpstreamError,
} from '#libs/upstream-client';
import { ConsentRepository, type StoredConsent } from './consent.repository.js';
import { ConsentBankAnswerService } from './consent-bank-answer.service.js';
import { ConsentCallbackHooks } from './consent-callback.hooks.js';
import { ConsentExpiryRepository } from './consent-expiry.repository.js';
import { ConsentStatus } from './consent-status.js';
import { isPastExpiry } from './consent-views.js';

/**
 * How long after a callback starts the worker looks at its consent: a callback that is well ends in
 * seconds, and one whose database went away keeps its approval in memory and retries for minutes
 * (ConsentCallbackService), which a look this early only races harmlessly (every store is guarded).
 */
export const CALLBACK_CHECK_DELAY_MS = 60_000;

/** The settle job's `check` for a spent callback (an expiry's is `expiry-<ms>`: ConsentReadingStartService). */
export const CALLBACK_CHECK = 'callback';

/**
 * Moves a consent on at the moment its state is due to change, rather than at the next scan: EXPIRED at
 * its `expiresAt` (a delayed job per expiry, enqueued by ConsentReadingStartService; the daily scan and
 * every read's `shownStatus` stand behind it), and a redirect callback whose single-use state was spent but whose answer never landed (the
 * database went away between the claim and the store) finished from the bank's own record: the one-time
 * token again when a reload brings it, else the consent as the bank reads it (with its token).
 */
@Injectable()
export class ConsentSettleService {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly consents: ConsentRepository,
    private readonly expiry: ConsentExpiryRepository,
    private readonly bankAnswer: ConsentBankAnswerService,
    private readonly jobs: JobProducerService,
    private readonly hooks: ConsentCallbackHooks,
  ) {}

  /** The callback's safety net, enqueued before it spends its state (Redis stays up when Postgres goes). */
  scheduleCallbackCheck(merchantId: MerchantId, consentId: string): Promise<void> {
    return this.enqueue(merchantId, consentId, CALLBACK_CHECK, CALLBACK_CHECK_DELAY_MS);
  }

  /** The settle job: whatever is due of this consent now, and its status after. */
  async settle(merchantId: MerchantId, consentId: string, now = new Date()): Promise<{ status: string }> {
    const consent = await this.consents.findOne(merchantId, consentId);
    if (!consent) return { status: 'GONE' };
    // Named with its bank: institution health counts the calls made to settle it.
    describeWork({ merchantId, institutionId: consent.institutionId, consentId });
    if (isPastExpiry(consent, now)) {
      await this.expiry.expire([consent.id], now);
    } else {
      const spent = await this.spentCallback(merchantId, consentId);
      if (spent) {
        await this.finish(merchantId, spent);
        // Then what the callback's hook would have done had its answer landed: a single payment is made
        // now, once (its claim is guarded), rather than when its authorisation window closes.
        const finished = await this.consents.findOne(merchantId, consentId);
        if (finished?.status === ConsentStatus.Authorised) {
          await this.hooks.for(finished.kind)?.authorised(merchantId, finished);
        }
      }
    }
    return { status: (await this.consents.findOne(merchantId, consentId))?.status ?? 'GONE' };
  }

  /** A redirect consent whose first callback spent its state but left it awaiting, or null. */
  async spentCallback(merchantId: MerchantId, consentId: string): Promise<StoredConsent | null> {
    const consent = await this.consents.findCallbackSpent(merchantId, consentId);
    return consent?.flow === 'REDIRECT' && consent.status === ConsentStatus.AwaitingAuthorisation
      ? consent
      : null;
  }

  /**
   * Finishes a spent callback from what the bank holds: the reload's one-time token when it still
   * exchanges (the first try never reached the bank), else the bank's own reading of the consent, which
   * carries its token once approved. A bank that says the authorisation ended fails it here too; one
   * still waiting leaves it waiting. A database outage is thrown for the caller to retry.
   */
  async finish(
    merchantId: MerchantId,
    consent: StoredConsent,
    oneTimeToken?: string,
    psu: PsuHeaders = {},
  ): Promise<void> {
    const subApplication = await this.consents.subApplicationOf(merchantId);
    const options = { subApplication, institutionId: consent.institutionId };
    let answer: UpstreamConsent | undefined;
    if (oneTimeToken) {
      try {
        answer = (await this.upstream.consents.exchangeOneTimeToken(oneTimeToken, { subApplication, psu }))
          .data;
      } catch (error) {
        // Refused (spent by the first try, or expired): the bank's reading below says the rest.
        if (!(error instanceof UpstreamError)) throw error;
      }
    }
    if (answer?.id !== consent.upstreamConsentId || !answer.consentToken) {
      answer = (await this.upstream.consents.get(consent.upstreamConsentId, options)).data;
    }
    await this.bankAnswer.apply(
      merchantId,
      consent,
      answer,
      subApplication,
      'its callback’s answer was lost',
    );
  }

  private async enqueue(merchantId: MerchantId, consentId: string, check: string, delayMs: number) {
    try {
      await this.jobs.enqueue(
        'consents.settle',
        { merchantId, consentId, check },
        { delay: Math.max(0, delayMs) },
      );
    } catch (error) {
      this.logger.warn(
        { consentId, check, dependency: dependencyFailureOf(error), errorName: (error as Error)?.name },
        'consent settle: not scheduled; the scans stand behind it',
      );
    }
  }
}
