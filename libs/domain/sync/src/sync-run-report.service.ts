import { Inject, Injectable } from '@nestjs/common';
import type { SyncTarget } from '#libs/domain/accounts';
import { type RunFailure, SyncRunMetrics } from '#libs/domain/sync-runs';
import { type AppLogger, LOGGER } from '#libs/observability';
import type { TenantRun } from './sync-run-ending.service.js';

/**
 * The operator's side of a sync run's end: the metric and the log line, written once per run that ended
 * (and a line per failed attempt), after its transaction committed, so neither counts a rolled-back end.
 */
@Injectable()
export class SyncRunReportService {
  constructor(
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly metrics: SyncRunMetrics,
  ) {}

  succeeded(run: TenantRun, target: SyncTarget, progress: object): void {
    this.metrics.finished('succeeded', target.consent.institutionId);
    this.logger.info({ runId: run.id, accountId: run.accountId, ...progress }, 'sync succeeded');
  }

  attemptFailed(run: TenantRun, target: SyncTarget, failure: RunFailure, nextAttemptAt: Date): void {
    this.logger.warn(
      { ...this.failureFields(run, target, failure), attempt: run.claim, nextAttemptAt },
      'sync attempt failed; the queue tries again',
    );
  }

  failed(
    run: TenantRun,
    target: SyncTarget,
    failure: RunFailure,
    { upstreamTracingId, nextSyncAt }: { upstreamTracingId: string | null; nextSyncAt: Date | null },
  ): void {
    this.metrics.finished('failed', target.consent.institutionId);
    this.logger.warn(
      { ...this.failureFields(run, target, failure), upstreamTracingId, nextSyncAt },
      'sync failed',
    );
  }

  /** What an operator needs of a failure on one line: whose, which bank, why, and what to quote upstream. */
  private failureFields(run: TenantRun, target: SyncTarget, failure: RunFailure) {
    return {
      runId: run.id,
      accountId: run.accountId,
      merchantId: run.merchantId,
      institutionId: target.consent.institutionId,
      code: failure.code,
      reason: failure.message,
      upstreamTracingId: tracingIdOf(failure),
    };
  }
}

/** The upstream's tracing id a failure carries, if any. */
function tracingIdOf(failure: RunFailure): string | null {
  const details = failure.details as { tracingId?: unknown } | undefined;
  return typeof details?.tracingId === 'string' ? details.tracingId : null;
}
