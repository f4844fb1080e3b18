import { Inject, Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { type AppLogger, LOGGER } from '#libs/observability';
import { UPSTREAM_CLIENT, type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import { ConsentRepository } from './consent.repository.js';
import { ConsentBankAnswerService } from './consent-bank-answer.service.js';
import { ConsentLifecycleRepository, type LifecycleConsent } from './consent-lifecycle.repository.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { CONSENT_STATE_TTL_SECONDS } from './consent-state.signer.js';
import { AUTHORISATION_ABANDONED, ConsentStatus } from './consent-status.js';
import { BATCH, eachBatch, forConsent, MIN_UUID } from './lifecycle-batches.js';

/**
 * After the callback's signed state is good no longer, and this margin (as for an abandoned VRP consent),
 * nothing can bring a redirect consent's user back: the bank's record settles it.
 */
export const UNRETURNED_AFTER_MS = (CONSENT_STATE_TTL_SECONDS + 300) * 1000;

/** What settling the consents whose users never came back from the bank did. */
export interface UnreturnedSettled {
  /** Approved at the bank: stored as the callback would have, first syncs asked for. */
  authorised: number;
  /** Ended at the bank (rejected, failed): failed with the bank's status. */
  ended: number;
  /** Still waiting at the bank, or unknown to it: EXPIRED, `AUTHORISATION_ABANDONED`. */
  abandoned: number;
  /** The bank could not be asked: left for the next run. */
  failed: number;
}

/**
 * Reconciliation's walk over the redirect consents whose user never came back: in batches, stopping at a
 * rate limit, where the settle job (ConsentSettleService) looks at one consent when it is due.
 */
@Injectable()
export class UnreturnedConsentsService {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly consents: ConsentRepository,
    private readonly state: ConsentStateRepository,
    private readonly lifecycle: ConsentLifecycleRepository,
    private readonly bankAnswer: ConsentBankAnswerService,
  ) {}

  /**
   * Redirect data consents whose user never came back through the callback (the tab closed at the bank,
   * the redirect lost): the upstream tells us nothing of them (no consent webhooks), so once their state
   * has lapsed the bank's record settles each, as for a spent callback; one still waiting is abandoned.
   * Stops at a rate limit: the next run goes on.
   */
  async settle(now: Date): Promise<UnreturnedSettled> {
    const result: UnreturnedSettled = { authorised: 0, ended: 0, abandoned: 0, failed: 0 };
    const movedBefore = new Date(now.getTime() - UNRETURNED_AFTER_MS);
    let limited = false;
    await eachBatch<LifecycleConsent>(
      (after) =>
        limited
          ? Promise.resolve([])
          : this.lifecycle.unreturnedRedirect(movedBefore, after?.id ?? MIN_UUID, BATCH),
      async (batch) => {
        for (const row of batch) {
          if (limited) return;
          const outcome = await forConsent(row, () => this.settleOne(row));
          if (outcome === 'rate-limited') limited = true;
          else if (outcome !== 'unchanged') result[outcome] += 1;
        }
      },
    );
    return result;
  }

  private async settleOne(
    row: LifecycleConsent,
  ): Promise<keyof UnreturnedSettled | 'unchanged' | 'rate-limited'> {
    const merchantId = row.merchantId as MerchantId;
    const consent = await this.consents.findOne(merchantId, row.id);
    if (consent?.status !== ConsentStatus.AwaitingAuthorisation) return 'unchanged';
    try {
      const subApplication = await this.consents.subApplicationOf(merchantId);
      const answer = (
        await this.upstream.consents.get(consent.upstreamConsentId, {
          subApplication,
          institutionId: consent.institutionId,
        })
      ).data;
      await this.bankAnswer.apply(
        merchantId,
        consent,
        answer,
        subApplication,
        'the user never came back through the callback',
      );
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      if (error.kind === 'RATE_LIMITED') return 'rate-limited';
      if (error.kind !== 'NOT_FOUND') {
        this.logger.warn(
          { err: error, consentId: consent.id },
          'unreturned consent: the bank could not be asked',
        );
        return 'failed';
      }
    }
    const status = (await this.consents.findOne(merchantId, consent.id))?.status;
    if (status === ConsentStatus.Authorised) return 'authorised';
    if (status !== ConsentStatus.AwaitingAuthorisation) return 'ended';
    const marked = await this.state.markFailed(
      merchantId,
      consent.id,
      ConsentStatus.Expired,
      AUTHORISATION_ABANDONED,
      'The user did not come back from the bank before the authorisation lapsed.',
    );
    return marked.applied ? 'abandoned' : 'unchanged';
  }
}
