import { Injectable } from '@nestjs/common';
import type pg from 'pg';
import { AccountBalanceRepository } from '#libs/domain/accounts';
import type { SyncWindow } from '#libs/domain/sync-runs';
import type { AccountBalance } from '#libs/upstream-client';
import type { TenantRun } from './sync-run-ending.service.js';
import { TransactionRepository } from './transaction.repository.js';

/**
 * What a successful run changes in the account's stored data, inside its final transaction: the records
 * the window no longer holds removed, and the balances read meanwhile put in place of the old ones.
 */
@Injectable()
export class SyncedDataService {
  constructor(
    private readonly transactions: TransactionRepository,
    private readonly balances: AccountBalanceRepository,
  ) {}

  /** `seen` as SyncRunEndingService.succeed takes it; answers how many records were removed. */
  async apply(
    db: pg.PoolClient,
    run: TenantRun,
    window: SyncWindow,
    seen: Set<string> | null,
    balances: readonly AccountBalance[],
  ): Promise<number> {
    const removed =
      seen === null
        ? 0
        : await this.transactions.removeUnseen(run.merchantId, db, run.accountId, window, seen);
    await this.balances.replace(run.merchantId, db, run.accountId, balances);
    return removed;
  }
}
