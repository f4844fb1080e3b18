import { Injectable } from '@nestjs/common';
import { describeWork, tenantOfRecord } from '#libs/context';
import { AccountSyncStateRepository, type SyncTarget, UnattendedReadsService } from '#libs/domain/accounts';
import { ConsentStatus, ConsentTokenVault, transactionsNotCovered } from '#libs/domain/consents';
import { type AttendedBy, SyncRunRepository } from '#libs/domain/sync-runs';
import { reauthoriseHint, reconnectHint } from '#libs/errors';
import type { ConsentCallOptions } from '#libs/upstream-client';
import { SyncRateLimitedError, SyncStoppedError } from './sync.errors.js';
import { SyncAttemptFailureService } from './sync-attempt-failure.service.js';
import { type SyncOutcome, SyncRunEndingService, type TenantRun } from './sync-run-ending.service.js';
import { SyncSideReadsService } from './sync-side-reads.service.js';
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
    private readonly runs: SyncRunRepository,
    private readonly syncState: AccountSyncStateRepository,
    private readonly vault: ConsentTokenVault,
    private readonly ending: SyncRunEndingService,
    private readonly window: SyncWindowService,
    private readonly sideReads: SyncSideReadsService,
    private readonly failures: SyncAttemptFailureService,
    private readonly unattended: UnattendedReadsService,
  ) {}

  /**
   * `plan.finalAttempt`: when the queue will not try again, a retryable failure ends the run as failed;
   * otherwise the run and the account show the attempt's error, and when the next one starts.
   */
  async run(
    job: { merchantId: string; accountId: string; runId: string; attended?: AttendedBy },
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
    // Asked for by a user still present: the bank reads on their behalf, not against its daily allowance.
    const present = job.attended && job.attended.presentUntil > Date.now() ? job.attended : undefined;
    const options: ConsentCallOptions = {
      consent: token,
      institutionId: target.consent.institutionId,
      subApplication: target.consent.subApplicationId ?? undefined,
      requestId: `sync-${run.id}`,
      ...(present ? { psu: { ipAddress: present.ipAddress } } : {}),
    };
    // Else a read without the user: one of the day's allowance, taken before the bank is asked anything.
    // None left (a manual sync took the planned one): the run waits for the next without spending an attempt.
    const read = present ? null : await this.unattended.take(run.merchantId, run.accountId);
    if (read && 'refused' in read) {
      await this.syncState.waitForAllowance(run.merchantId, run.accountId, read.resetsAt);
      throw new SyncRateLimitedError(Math.max(1_000, read.resetsAt.getTime() - Date.now()));
    }
    try {
      // The consent's account list and the balances travel while the window is read; awaited at the end.
      const side = this.sideReads.start(run, target, options);
      const { window, append } = await this.window.fix(run, target);
      await this.syncState.markSyncing(run.merchantId, run.accountId);
      const { seen, appendedAll } = await this.window.read(run, target, window, append, options, read);
      if (!(await side.accountListed())) {
        await this.ending.fail(run, target, {
          code: 'ACCOUNT_CLOSED',
          message: 'The bank no longer lists this account under the consent; its data is kept.',
        });
        throw new SyncStoppedError(`account ${target.id} is closed`);
      }
      const balances = await side.balances();
      const removable = appendedAll ? null : seen;
      return await this.ending.succeed(run, target, window, removable, balances);
    } catch (error) {
      await read?.failed(error);
      return this.failures.handle(error, run, target, plan);
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

  private openToken(target: SyncTarget): string | null {
    const { consent } = target;
    if (consent.status !== ConsentStatus.Authorised) return null;
    if (consent.expiresAt && consent.expiresAt.getTime() <= Date.now()) return null;
    return this.vault.open(consent, consent.id);
  }
}
