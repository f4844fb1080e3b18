import { Module } from '@nestjs/common';
import { AccountsModule } from '#libs/domain/accounts';
import { FinancialDataModule } from '#libs/domain/financial-data';
import { SyncModule } from '#libs/domain/sync';
import { AccountDataController } from './account-data.controller.js';
import { AccountsController } from './accounts.controller.js';
import { SyncController } from './sync.controller.js';
import { TransactionChangesController } from './transaction-changes.controller.js';

/**
 * /v1/users/:userId/accounts, /v1/accounts/:accountId/* and /v1/syncs/:syncId (docs/api-guide.md,
 * "Consents and accounts", "Stored transactions and sync", "Financial data and VRP"): the stored accounts,
 * what is read through to the bank, and syncs with their stored transactions.
 */
@Module({
  imports: [AccountsModule, FinancialDataModule, SyncModule],
  controllers: [AccountsController, AccountDataController, SyncController, TransactionChangesController],
})
export class AccountsApiModule {}
