import { Inject, Injectable } from '@nestjs/common';
import { describeWork, tenantOfRecord } from '#libs/context';
import {
  AccountPlacementRepository,
  AccountSyncStateRepository,
  type SyncTarget,
} from '#libs/domain/accounts';
import {
  consentGoneOnError,
  ConsentStateRepository,
  ConsentStatus,
  ConsentTokenVault,
  transactionsNotCovered,
} from '#libs/domain/consents';
import { RunSupersededError, SyncRunRepository } from '#libs/domain/sync-runs';
import { reauthoriseHint, reconnectHint } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import {
  type ConsentCallOptions,
  UPSTREAM_CLIENT,
  type UpstreamClient,
  UpstreamError,
} from '#libs/upstream-client';
import { SyncRateLimitedError, SyncStoppedError } from './sync.errors.js';
import { DEFAULT_RATE_LIMIT_WAIT_MS, failureOf, isPermanent, sideCall } from './sync-failures.js';
import { type SyncOutcome, SyncRunEndingService, type TenantRun } from './sync-run-ending.service.js';
import { SyncWindowService } from './sync-window.service.js';

/** What the queue does if this attempt fails with a retryable error: nothing more, or try again. */
export interface AttemptPlan {
  finalAttempt: boolean;
  retryInMs: number;
}

/**
 * One sync run of one account: reads the run's window from the upstream into the table page by page
 * (SyncWindowService), lists the consent's accounts and reads the balances meanwhile, then in one final
 * transaction removes what the window no longer holds, refreshes the balances, ends the run, marks
 * the account and records the merchant events. Any number of workers may run it: one active run per
 * account (a unique index), BullMQ's job lock, and a fencing token on the run (a worker whose job was taken
 * over writes nothing more) keep one sync of an account at a time; a run a dead worker left running restarts.
 */
@Injectable()
export class AccountSyncService {
  constructor(
    @Inject(LOGGER) private readonly logger: AppLogger,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    private readonly runs: SyncRunRepository,
    private readonly placement: AccountPlacementRepository,
    private readonly syncState: AccountSyncStateRepository,
    private readonly consentState: ConsentStateRepository,
    private readonly vault: ConsentTokenVault,
    private readonly ending: SyncRunEndingService,
    private readonly window: SyncWindowService,
  ) {}

  /**
   * `plan.finalAttempt`: when the queue will not try again, a retryable failure ends the run as failed;
   * otherwise the run and the account show the attempt's error, and when the next one starts.
   */
  async run(
    job: { merchantId: string; accountId: string; runId: string },
    plan: AttemptPlan,
  ): Promise<SyncOutcome> {
    const claimed = await this.runs.claim(job.runId);
    if (!claimed || claimed.merchantId !== job.merchantId || claimed.accountId !== job.accountId) {
      return 'already-ended';
    }
    const run: TenantRun = { ...claimed, merchantId: tenantOfRecord(job) };
    const target = await this.syncState.syncTarget(run.merchantId, run.accountId);
    if (!target) return 'already-ended';
    describeWork({
      merchantId: run.merchantId,
      institutionId: target.consent.institutionId,
      consentId: target.consent.id,
      syncRunId: run.id,
    });
    const token = await this.usableToken(run, target);
    const options: ConsentCallOptions = {
      consent: token,
      institutionId: target.consent.institutionId,
      subApplication: target.consent.subApplicationId ?? undefined,
      requestId: `sync-${run.id}`,
    };
    try {
      // The consent's account list and the balances travel while the window is read; awaited at the end.
      const listAccounts = () => this.refreshAccounts(run, target, options);
      const readBalances = () => this.upstream.data.getAccountBalances(target.upstreamAccountId, options);
      const listing = listAccounts();
      listing.catch(() => undefined);
      const balances = readBalances();
      balances.catch(() => undefined);
      const { window, append } = await this.window.fix(run, target);
      await this.syncState.markSyncing(run.merchantId, run.accountId);
      const { seen, appendedAll } = await this.window.read(run, target, window, append, options);
      if (!(await sideCall(listing, listAccounts))) {
        await this.ending.fail(run, target, {
          code: 'ACCOUNT_CLOSED',
          message: 'The bank no longer lists this account under the consent; its data is kept.',
        });
        throw new SyncStoppedError(`account ${target.id} is closed`);
      }
      const { data } = await sideCall(balances, readBalances);
      const removable = appendedAll ? null : seen;
      return await this.ending.succeed(run, target, window, removable, data.balances ?? []);
    } catch (error) {
      return this.onFailure(error, run, target, plan);
    }
  }

  /**
   * The consent's token for this run's calls. When the consent cannot be used (not authorised, past its
   * expiry, without a token, or not covering transactions), the run ends as failed and a SyncStoppedError
   * stops it before the bank is asked anything.
   */
  private async usableToken(run: TenantRun, target: SyncTarget): Promise<string> {
    const token = this.openToken(target);
    if (!token) {
      const { consent } = target;
      // Still AUTHORIZED here when the expiry passed before the scan marked it: it has ended all the same.
      const expired = consent.expiresAt !== null && consent.expiresAt.getTime() <= Date.now();
      const state =
        consent.status !== ConsentStatus.Authorised
          ? consent.status
          : expired
            ? 'past its expiry'
            : 'without a token';
      await this.ending.fail(run, target, {
        code: 'CONSENT_NOT_AUTHORISED',
        message:
          consent.status === ConsentStatus.AwaitingReauthorisation
            ? `The consent waits for the user's re-authorisation: ${reauthoriseHint(consent.id)}`
            : `The consent is ${state}, not usable: if it has ended (revoked, expired), ${reconnectHint(target.userId, consent.institutionId)}`,
      });
      throw new SyncStoppedError(`consent ${target.consent.id} is not usable`);
    }
    const notCovered = transactionsNotCovered(target.consent.featureScope);
    if (notCovered) {
      // The bank would refuse every read (403): asked nothing, the account stops until a new consent.
      await this.ending.fail(run, target, { code: 'CONSENT_SCOPE', message: notCovered }, true);
      throw new SyncStoppedError(`consent ${target.consent.id} does not cover transactions`);
    }
    return token;
  }

  /**
   * The consent's accounts as the upstream lists them now: new ones are added (due at once, for the next
   * dispatch), unlisted ones closed, relisted ones reopened. False when this run's own account is closed.
   * Sent alongside the window's first pages, so it adds no wait to a sync.
   */
  private async refreshAccounts(
    run: TenantRun,
    target: SyncTarget,
    options: ConsentCallOptions,
  ): Promise<boolean> {
    const { data: listed } = await this.upstream.data.getAccounts(options);
    const ids = listed.map((a) => a.id);
    await this.syncState.reopenListed(run.merchantId, target.consent.id, ids);
    // Only accounts new to us are stored here (their balances come with their first sync).
    const known = new Set(await this.syncState.upstreamIdsOfConsent(run.merchantId, target.consent.id));
    const added = listed.filter((a) => !known.has(a.id));
    if (added.length > 0) {
      await this.placement.upsertFromUpstream(
        run.merchantId,
        {
          userId: target.userId,
          consentId: target.consent.id,
          institutionId: target.consent.institutionId,
        },
        added,
      );
    }
    const closed = await this.syncState.closeUnlisted(run.merchantId, target.consent.id, ids);
    if (closed.length > 0)
      this.logger.info({ consentId: target.consent.id, closed }, 'sync: accounts closed');
    return ids.includes(target.upstreamAccountId);
  }

  private openToken(target: SyncTarget): string | null {
    const { consent } = target;
    if (consent.status !== ConsentStatus.Authorised) return null;
    if (consent.expiresAt && consent.expiresAt.getTime() <= Date.now()) return null;
    return this.vault.open(consent, consent.id);
  }

  private async onFailure(
    error: unknown,
    run: TenantRun,
    target: SyncTarget,
    plan: AttemptPlan,
  ): Promise<SyncOutcome> {
    if (error instanceof RunSupersededError) {
      this.logger.warn({ runId: run.id }, 'sync run taken over by another worker; this one stops');
      return 'already-ended';
    }
    if (error instanceof UpstreamError && error.kind === 'RATE_LIMITED') {
      throw new SyncRateLimitedError(error.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS);
    }
    const gone = error instanceof UpstreamError ? consentGoneOnError(error) : undefined;
    if (error instanceof UpstreamError && gone) {
      // Stops every account of the consent; the account then shows why its sync stopped.
      const marked = await this.consentState.markGone(run.merchantId, {
        consentId: target.consent.id,
        ...gone,
        now: new Date(),
        tokenUsed: target.consent.tokenCiphertext,
      });
      // The consent moved on meanwhile (re-authorised with a new token): the next attempt uses that one.
      if (!marked.applied && !plan.finalAttempt) throw error;
      await this.ending.fail(run, target, failureOf(error, 'CONSENT_EXPIRED'));
      throw new SyncStoppedError(`consent ${target.consent.id} is ${gone.status}`);
    }
    if (error instanceof SyncStoppedError) throw error;
    const permanent = isPermanent(error);
    if (!permanent && !plan.finalAttempt) {
      await this.ending.attemptFailed(run, target, failureOf(error, 'SYNC_FAILED'), plan.retryInMs);
      throw error;
    }
    await this.ending.fail(run, target, failureOf(error, 'SYNC_FAILED'));
    if (permanent) throw new SyncStoppedError(error instanceof Error ? error.message : String(error));
    throw error;
  }
}
