import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { tenantOfRecord } from '#libs/context';
import { type AppLogger, LOGGER } from '#libs/observability';
import { CLOCK, type Clock } from '#libs/time';
import { ConsentExpiryRepository } from './consent-expiry.repository.js';
import { ConsentLifecycleRepository, type LifecycleConsent } from './consent-lifecycle.repository.js';
import { ConsentRenewalLinkService } from './consent-renewal-link.service.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { CONSENT_STATE_TTL_SECONDS } from './consent-state.signer.js';
import { AUTHORISATION_ABANDONED, ConsentStatus } from './consent-status.js';
import { BATCH, eachBatch, forConsent, inParallel, MIN_UUID, PARALLEL_CALLS } from './lifecycle-batches.js';

const DAY_MS = 86_400_000;

export interface ExpiryScan {
  expired: number;
  /** VRP consents never authorised within the callback's window: EXPIRED, as a single payment would be. */
  abandoned: number;
  warned: number;
  reauthorisationsRequested: number;
  reauthorisationsFailed: number;
  /** At banks that need the user present: our link offered instead of asking the bank. */
  userPresentLinks: number;
}

/**
 * The consent lifecycle's clock (a data consent lasts at most 90 days): the expiry scan warns before the
 * end and asks the bank to re-authorise, and expires what is past due. Reads one injectable clock and is
 * safe to run twice, in any number of workers: every write is guarded, so each event goes out once.
 * What the bank changed without telling us is ConsentReconciliationService's.
 */
@Injectable()
export class ConsentExpiryScanService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly lifecycle: ConsentLifecycleRepository,
    private readonly state: ConsentStateRepository,
    private readonly expiry: ConsentExpiryRepository,
    private readonly renewal: ConsentRenewalLinkService,
  ) {}

  async scanExpiry(now = this.clock.now()): Promise<ExpiryScan> {
    const result: ExpiryScan = {
      expired: 0,
      abandoned: 0,
      warned: 0,
      reauthorisationsRequested: 0,
      reauthorisationsFailed: 0,
      userPresentLinks: 0,
    };
    await eachBatch<LifecycleConsent>(
      (after) => this.lifecycle.pastExpiry(now, after, BATCH),
      async (batch) => {
        result.expired += await this.expiry.expire(
          batch.map((c) => c.id),
          now,
        );
      },
    );
    result.abandoned = await this.abandonVrp(now);
    const cutoff = new Date(now.getTime() + this.config.consents.refreshDaysBeforeExpiry * DAY_MS);
    await eachBatch<LifecycleConsent>(
      (after) => this.lifecycle.expiringSoon(now, cutoff, after, BATCH),
      async (batch) => {
        result.warned += (
          await this.expiry.warn(
            batch.map((c) => c.id),
            now,
            cutoff,
          )
        ).size;
        // Only a redirect-flow consent can be sent back to the bank; the claim lets one worker ask.
        const redirect = batch.filter((c) => c.flow === 'REDIRECT');
        await inParallel(redirect, PARALLEL_CALLS, (consent) =>
          forConsent(consent, () => this.reauthorise(consent, now, cutoff, result)),
        );
      },
    );
    this.logger.info({ ...result }, 'consent expiry scan');
    return result;
  }

  /**
   * VRP consents never authorised: the callback's signed state is good for CONSENT_STATE_TTL_SECONDS, and
   * after it (and a margin, as for a single payment) nothing can authorise the consent any more.
   */
  private async abandonVrp(now: Date): Promise<number> {
    let abandoned = 0;
    const abandonedBefore = new Date(now.getTime() - (CONSENT_STATE_TTL_SECONDS + 300) * 1000);
    await eachBatch<LifecycleConsent>(
      (after) => this.lifecycle.abandonedVrp(abandonedBefore, after?.id ?? MIN_UUID, BATCH),
      async (batch) => {
        for (const consent of batch) {
          const ended = await this.state.markFailed(
            tenantOfRecord(consent),
            consent.id,
            ConsentStatus.Expired,
            AUTHORISATION_ABANDONED,
            'The user did not authorise the VRP consent in time.',
          );
          if (ended.applied) abandoned += 1;
        }
      },
    );
    return abandoned;
  }

  /** Asks the bank to re-authorise one redirect consent before it expires, once across workers. */
  private async reauthorise(consent: LifecycleConsent, now: Date, cutoff: Date, result: ExpiryScan) {
    const tenant = tenantOfRecord(consent);
    if (!(await this.expiry.claimReauthorisation(tenant, consent.id, now, cutoff))) return;
    try {
      const how = await this.renewal.reauthoriseBeforeExpiry(tenant, consent.id);
      if (how === 'asked') result.reauthorisationsRequested += 1;
      else result.userPresentLinks += 1;
    } catch (err) {
      // The next scan tries again; consent.expiring has gone out already, so the merchant knows.
      await this.expiry.releaseReauthorisation(tenant, consent.id);
      result.reauthorisationsFailed += 1;
      this.logger.warn(
        { err, consentId: consent.id },
        'consent lifecycle: re-authorisation before expiry failed',
      );
    }
  }
}
