import { Inject, Injectable } from '@nestjs/common';
import { type AppLogger, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';
import { SyncRunRepository } from './sync-run.repository.js';
import type { SyncTrigger } from './sync-run.statements.js';

/**
 * How long after a user asked for a sync its run reads the bank on their behalf (sends their address,
 * and takes no read of the bank's daily allowance): while they are likely still at the screen. A run
 * that starts later (a queue backlog, a retry) reads as any other.
 */
export const USER_PRESENT_MS = 5 * 60_000;

/**
 * How long after a consent's authorisation its accounts become due for the dispatcher: the authorisation
 * asks for their first syncs itself right after it commits (on behalf of the user when they are present),
 * and a dispatcher round in between would open scheduled runs without them, each one of the bank's daily
 * reads. Should that request be lost, the dispatcher still starts them, this much later.
 */
export const FIRST_SYNC_ASKED_WITHIN_MS = 30_000;

/** The user who asked for a run, present: their address, and until when they count as present. */
export interface AttendedBy {
  ipAddress: string;
  presentUntil: number;
}

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
    attended?: AttendedBy,
  ): Promise<{ id: string; accountId: string; created: boolean }[]> {
    const runs = await this.runs.openRuns(accounts, trigger);
    const merchantOf = new Map(accounts.map((a) => [a.accountId, a.merchantId]));
    // A first sync or one a merchant asked for is awaited by someone: it goes ahead of the scheduled
    // backlog, so a merchant with 10^4 accounts due never delays another merchant's new connection.
    await this.jobs.enqueueMany(
      'sync.account',
      runs.map((r) => ({
        merchantId: merchantOf.get(r.accountId)!,
        accountId: r.accountId,
        runId: r.id,
        // A run already queued keeps its job (one per run): it reads without the user.
        ...(attended ? { attended } : {}),
      })),
      [],
      { ahead: trigger !== 'SCHEDULED' },
    );
    return runs;
  }

  /**
   * The first sync of a just-authorised consent's accounts, at once. Best effort by design: the accounts
   * are made due shortly after, so if Redis is away the dispatcher starts them on a round after that.
   */
  async requestInitial(
    accounts: readonly { merchantId: string; accountId: string }[],
    attended?: AttendedBy,
  ): Promise<void> {
    try {
      await this.request(accounts, 'INITIAL', attended);
    } catch (error) {
      this.logger.warn(
        { err: error, accounts: accounts.length },
        'first sync not enqueued; the dispatcher will start it',
      );
    }
  }
}
