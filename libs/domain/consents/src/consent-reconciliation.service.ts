import { Inject, Injectable } from '@nestjs/common';
import { tenantOfRecord } from '#libs/context';
import { type AppLogger, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';
import { CLOCK, type Clock } from '#libs/time';
import { UPSTREAM_CLIENT, type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import { type ConsentGone, consentGone } from './consent-gone-signals.js';
import { ConsentLifecycleRepository, type LifecycleConsent } from './consent-lifecycle.repository.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { ConsentStatus } from './consent-status.js';
import {
  BATCH,
  byQueryLength,
  eachBatch,
  forConsent,
  inParallel,
  MIN_UUID,
  PARALLEL_CALLS,
} from './lifecycle-batches.js';
import { UnreturnedConsentsService, type UnreturnedSettled } from './unreturned-consents.service.js';

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
 * Applies what the bank changed without telling us (the upstream sends no consent webhooks): revocations
 * and expiries read from its listing, embedded polls Redis lost restarted, and redirect consents whose
 * user never came back settled. Reads one injectable clock and is safe to run twice, in any number of
 * workers: every write is guarded, so each event goes out once.
 */
@Injectable()
export class ConsentReconciliationService {
  constructor(
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly lifecycle: ConsentLifecycleRepository,
    private readonly state: ConsentStateRepository,
    private readonly unreturned: UnreturnedConsentsService,
    private readonly jobs: JobProducerService,
  ) {}

  async reconcile(now = this.clock.now()): Promise<Reconciliation> {
    const pollsResumed = await this.resumeEmbeddedPolls(now);
    const unreturned = await this.unreturned.settle(now);
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
