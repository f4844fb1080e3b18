import { Inject, Injectable } from '@nestjs/common';
import { type AppLogger, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';
import { SyncRunRepository } from './sync-run.repository.js';
import type { SyncTrigger } from './sync-run.statements.js';

/**
 * Opens sync runs and enqueues their jobs. The run row comes first: it is what makes a request
 * idempotent (one active run per account), and what the dispatcher finds again if the enqueue is lost.
 */
@Injectable()
export class SyncRequestsService {
  constructor(
    private readonly runs: SyncRunRepository,
    private readonly jobs: JobProducerService,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  /** The active run of each account (opened when none is), each with its job enqueued. */
  async request(
    accounts: readonly { merchantId: string; accountId: string }[],
    trigger: SyncTrigger,
  ): Promise<{ id: string; accountId: string; created: boolean }[]> {
    const runs = await this.runs.openRuns(accounts, trigger);
    const merchantOf = new Map(accounts.map((a) => [a.accountId, a.merchantId]));
    // A first sync or one a merchant asked for is awaited by someone: it goes ahead of the scheduled
    // backlog, so a merchant with 10^4 accounts due never delays another merchant's new connection.
    await this.jobs.enqueueMany(
      'sync.account',
      runs.map((r) => ({ merchantId: merchantOf.get(r.accountId)!, accountId: r.accountId, runId: r.id })),
      [],
      { ahead: trigger !== 'SCHEDULED' },
    );
    return runs;
  }

  /**
   * The first sync of a just-authorised consent's accounts, at once. Best effort by design: the accounts
   * are already due (next_sync_at = now), so if Redis is away the dispatcher starts them on its next round.
   */
  async requestInitial(accounts: readonly { merchantId: string; accountId: string }[]): Promise<void> {
    try {
      await this.request(accounts, 'INITIAL');
    } catch (error) {
      this.logger.warn(
        { err: error, accounts: accounts.length },
        'first sync not enqueued; the dispatcher will start it',
      );
    }
  }
}
