import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { tenantOfRecord } from '#libs/context';
import { type AppLogger, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';
import { CLOCK, type Clock } from '#libs/time';
import { UPSTREAM_CLIENT, type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import { ConsentExpiryRepository } from './consent-expiry.repository.js';
import { type ConsentGone, consentGone } from './consent-gone-signals.js';
import { ConsentLifecycleRepository, type LifecycleConsent } from './consent-lifecycle.repository.js';
import { ConsentRenewalService } from './consent-renewal.service.js';
import { ConsentSettleService, type UnreturnedSettled } from './consent-settle.service.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { CONSENT_STATE_TTL_SECONDS } from './consent-state.signer.js';
import { AUTHORISATION_ABANDONED, ConsentStatus } from './consent-status.js';
import { BATCH, byQueryLength, eachBatch, forConsent, inParallel } from './lifecycle-batches.js';

const DAY_MS = 86_400_000;
const MIN_UUID = '00000000-0000-0000-0000-000000000000';
/** Upstream calls in flight at once: re-authorisations and reconciliation stay polite to the rate limit. */
const PARALLEL_CALLS = 4;
/** Reconciliation visits at most this many consents a run; the least recently checked go first. */
const RECONCILE_PER_RUN = 5_000;
/** Consents reconciled together: their users' consents are listed in a few upstream calls. */
const RECONCILE_BATCH = 100;
/**
 * The user ids one listing call names travel in its query string, one parameter each: this many
 * characters of them keeps the URL well inside what servers and proxies take (8 KB is the common floor).
 */
const LISTED_USERS_CHARS = 4_000;
/**
 * An embedded consent awaiting the bank's outcome for any time at all has its poll made sure of: restarting
 * a poll whose job exists is a no-op, and one the step is about to enqueue collapses into the same job. No
 * grace period, so that the reconciliation a restored scheduler runs at once misses no consent.
 */
const EMBEDDED_POLL_LOST_MS = 0;

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

export interface Reconciliation {
  checked: number;
  revoked: number;
  expired: number;
  failed: number;
  /** Embedded consents awaiting the bank's outcome whose poll was made sure of (enqueued again if lost). */
  pollsResumed: number;
  /** Redirect consents whose user never came back from the bank, settled from the bank's record. */
  unreturned: UnreturnedSettled;
}

/**
 * The consent lifecycle (a data consent lasts at most 90 days): the expiry scan warns before the end and
 * asks the bank to re-authorise, and expires what is past due; reconciliation applies what the bank
 * changed without telling us. Both read one injectable clock and are safe to run twice, in any number of
 * workers: every write is guarded, so each event goes out once.
 */
@Injectable()
export class ConsentLifecycleService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly lifecycle: ConsentLifecycleRepository,
    private readonly state: ConsentStateRepository,
    private readonly expiry: ConsentExpiryRepository,
    private readonly renewal: ConsentRenewalService,
    private readonly settle: ConsentSettleService,
    private readonly jobs: JobProducerService,
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

  async reconcile(now = this.clock.now()): Promise<Reconciliation> {
    const pollsResumed = await this.resumeEmbeddedPolls(now);
    const unreturned = await this.settle.settleUnreturned(now);
    const counts = { checked: 0, revoked: 0, expired: 0, failed: 0 };
    const result: Reconciliation = { ...counts, pollsResumed, unreturned };
    // Everything not checked since this run began, least recently checked first, at most a run's worth.
    // A 429 the client could not wait out ends the run: the rest waits for the next one.
    let limited = false;
    while (!limited && result.checked + result.failed < RECONCILE_PER_RUN) {
      const batch = await this.lifecycle.leastRecentlyReconciled(now, RECONCILE_BATCH);
      if (batch.length === 0) break;
      const listed = await this.listedStatuses(batch);
      if (listed === 'rate-limited') break;
      await inParallel(batch, PARALLEL_CALLS, async (consent) => {
        if (limited) return;
        const listedStatus = listed.get(consent.upstreamConsentId);
        const outcome = await forConsent(consent, () => this.reconcileOne(consent, now, listedStatus));
        if (outcome === 'rate-limited') limited = true;
        else if (outcome === 'failed') result.failed += 1;
        else result.checked += 1;
        if (outcome === 'revoked') result.revoked += 1;
        if (outcome === 'expired') result.expired += 1;
      });
    }
    this.logger.info({ ...result }, 'consent reconciliation');
    return result;
  }

  /**
   * Nothing but its poll job ever moves an embedded consent on from AWAITING_AUTHORIZATION: a poll Redis
   * forgot would leave it there for good. Postgres knows which consents wait; their polls are restarted.
   */
  private async resumeEmbeddedPolls(now: Date): Promise<number> {
    let resumed = 0;
    const movedBefore = new Date(now.getTime() - EMBEDDED_POLL_LOST_MS);
    await eachBatch<{ id: string; merchantId: string }>(
      (after) => this.lifecycle.awaitingEmbeddedOutcome(movedBefore, after?.id ?? MIN_UUID, BATCH),
      async (batch) => {
        await inParallel(batch, PARALLEL_CALLS, async ({ id, merchantId }) => {
          await this.jobs.restart('consents.poll-embedded', { merchantId, consentId: id });
        });
        resumed += batch.length;
      },
    );
    return resumed;
  }

  /**
   * The upstream status of a batch's consents, from listing their users' consents (`GET /consents`
   * filtered by user, a few calls a batch) rather than one read per consent. A consent the listing does
   * not show (deleted upstream, its user renamed) is read alone by {@link reconcileOne}; so is every
   * consent of a group whose listing failed.
   */
  private async listedStatuses(batch: LifecycleConsent[]): Promise<Map<string, string> | 'rate-limited'> {
    const usersBySubApplication = new Map<string | null, Set<string>>();
    for (const consent of batch) {
      const users = usersBySubApplication.get(consent.subApplicationId) ?? new Set<string>();
      users.add(consent.applicationUserId);
      usersBySubApplication.set(consent.subApplicationId, users);
    }
    const statuses = new Map<string, string>();
    for (const [subApplicationId, users] of usersBySubApplication) {
      for (const applicationUserId of byQueryLength([...users], LISTED_USERS_CHARS)) {
        try {
          const pages = this.upstream.consents.pages(
            { applicationUserId },
            { subApplication: subApplicationId ?? undefined },
          );
          for await (const page of pages)
            for (const listed of page.data) statuses.set(listed.id, listed.status);
        } catch (error) {
          if (error instanceof UpstreamError && error.kind === 'RATE_LIMITED') return 'rate-limited';
          this.logger.warn(
            { err: error, users: applicationUserId.length },
            'consent reconciliation: listing failed; reading those consents one by one',
          );
        }
      }
    }
    return statuses;
  }

  private async reconcileOne(
    consent: LifecycleConsent,
    now: Date,
    listedStatus: string | undefined,
  ): Promise<'unchanged' | 'revoked' | 'expired' | 'failed' | 'rate-limited'> {
    const tenant = tenantOfRecord(consent);
    let gone: ConsentGone | undefined;
    try {
      const status =
        listedStatus ??
        (
          await this.upstream.consents.get(consent.upstreamConsentId, {
            subApplication: consent.subApplicationId ?? undefined,
          })
        ).data.status;
      gone = consentGone('upstreamStatus', status);
    } catch (error) {
      if (error instanceof UpstreamError && error.kind === 'RATE_LIMITED') return 'rate-limited';
      gone = error instanceof UpstreamError ? consentGone('errorKind', error.kind) : undefined;
      if (!gone) {
        // Marked checked all the same: this run moves on, the next one tries it again.
        this.logger.warn(
          { err: error, consentId: consent.id },
          'consent reconciliation: upstream call failed',
        );
        await this.lifecycle.markReconciled(tenant, consent.id, now);
        return 'failed';
      }
    }
    let outcome: 'unchanged' | 'revoked' | 'expired' = 'unchanged';
    if (consent.status === ConsentStatus.AwaitingReauthorisation) {
      // Waiting for the user to re-authorise: only a revocation ends that (an expiry is our own scan's).
      if (gone?.status === ConsentStatus.Revoked) {
        if ((await this.state.markRevoked(tenant, consent.id, now)).applied) outcome = 'revoked';
      }
    } else if (gone) {
      const marked = await this.state.markGone(tenant, {
        consentId: consent.id,
        status: gone.status,
        code: gone.code,
        message: `Reconciliation: the bank reports the consent ${gone.status.toLowerCase()}.`,
        now,
      });
      if (marked.applied) outcome = gone.status === ConsentStatus.Revoked ? 'revoked' : 'expired';
    }
    await this.lifecycle.markReconciled(tenant, consent.id, now);
    return outcome;
  }
}
