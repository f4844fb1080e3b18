import { Inject, Injectable } from '@nestjs/common';
import type { SyncTarget } from '#libs/domain/accounts';
import { consentGoneOnError, ConsentStateRepository } from '#libs/domain/consents';
import { RunSupersededError } from '#libs/domain/sync-runs';
import { bankHoldUntil } from '#libs/domain/upstream-failures';
import { type AppLogger, LOGGER } from '#libs/observability';
import { UpstreamError } from '#libs/upstream-client';
import type { AttemptPlan } from './account-sync.service.js';
import { SyncRateLimitedError, SyncStoppedError } from './sync.errors.js';
import { DEFAULT_RATE_LIMIT_WAIT_MS, failureOf, isPermanent } from './sync-failures.js';
import { type SyncOutcome, SyncRunEndingService, type TenantRun } from './sync-run-ending.service.js';

/**
 * What a sync attempt's failure means, and what the queue is told: taken over (stop quietly), rate
 * limited or the bank's daily allowance spent (wait), the consent gone at the bank (marked so, every account of it stops), permanent (end the
 * run and stop), else end the run or show the failed attempt, as the queue will try again or not.
 */
@Injectable()
export class SyncAttemptFailureService {
  constructor(
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly consentState: ConsentStateRepository,
    private readonly ending: SyncRunEndingService,
  ) {}

  async handle(error: unknown, run: TenantRun, target: SyncTarget, plan: AttemptPlan): Promise<SyncOutcome> {
    if (error instanceof RunSupersededError) {
      this.logger.warn({ runId: run.id }, 'sync run taken over by another worker; this one stops');
      return 'already-ended';
    }
    if (error instanceof UpstreamError && error.kind === 'RATE_LIMITED') {
      throw new SyncRateLimitedError(error.retryAfterMs ?? DEFAULT_RATE_LIMIT_WAIT_MS);
    }
    if (error instanceof UpstreamError && error.kind === 'DAILY_LIMIT') {
      // The account's own allowance, not the bank failing: the run waits for the bank's next day, and the
      // account says until when (a manual sync meanwhile is refused with it), with the bank's answer.
      const until = bankHoldUntil(error.retryAfterMs);
      await this.ending.attemptFailed(run, target, failureOf(error, 'DAILY_LIMIT_REACHED'), {
        heldUntil: until,
      });
      const waitMs = Math.max(0, until.getTime() - Date.now());
      this.logger.warn(
        { merchantId: run.merchantId, accountId: run.accountId, upstreamTracingId: error.tracingId, waitMs },
        "sync waits for the bank's daily allowance of unattended reads",
      );
      throw new SyncRateLimitedError(waitMs);
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
      await this.ending.attemptFailed(run, target, failureOf(error, 'SYNC_FAILED'), {
        retryInMs: plan.retryInMs,
      });
      throw error;
    }
    await this.ending.fail(run, target, failureOf(error, 'SYNC_FAILED'));
    if (permanent) throw new SyncStoppedError(error instanceof Error ? error.message : String(error));
    throw error;
  }
}
