import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { deleteInBatches } from '#libs/database';
import { CLOCK, type Clock } from '#libs/time';
import { TransactionChangeRepository } from './transaction-change.repository.js';

/**
 * Removes the change feed's tombstones (removed records) older than EVENT_RETENTION_DAYS: a reader away
 * longer than events are kept starts again, as a stream resumed from before the events kept does. Live
 * records stay in the feed as long as they are stored.
 */
@Injectable()
export class TransactionChangesRetentionService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly changes: TransactionChangeRepository,
  ) {}

  async prune(): Promise<{ transactionRemovals: number }> {
    const cutoff = new Date(this.clock.now().getTime() - this.config.retention.eventDays * 86_400_000);
    const transactionRemovals = await deleteInBatches((limit) =>
      this.changes.pruneRemovedBefore(cutoff, limit),
    );
    return { transactionRemovals };
  }
}
