import { Module } from '@nestjs/common';
import { AccountsModule } from '#libs/domain/accounts';
import { ConsentsModule } from '#libs/domain/consents';
import { EventsModule } from '#libs/domain/events';
import { SyncRunsModule } from '#libs/domain/sync-runs';
import { AccountSyncService } from './account-sync.service.js';
import { StoredPageCache } from './stored-page.cache.js';
import { SyncService } from './sync.service.js';
import { SyncDispatcher } from './sync-dispatcher.service.js';
import { TransactionRepository } from './transaction.repository.js';
import { TransactionChangeRepository } from './transaction-change.repository.js';
import { TransactionChangesService } from './transaction-changes.service.js';
import { TransactionChangesRetention } from './transaction-changes-retention.service.js';

/** The sync engine (worker side) and its merchant-facing reads (api side). */
@Module({
  imports: [AccountsModule, ConsentsModule, EventsModule, SyncRunsModule],
  providers: [
    TransactionRepository,
    TransactionChangeRepository,
    TransactionChangesService,
    TransactionChangesRetention,
    StoredPageCache,
    AccountSyncService,
    SyncDispatcher,
    SyncService,
  ],
  exports: [
    AccountSyncService,
    SyncDispatcher,
    SyncService,
    TransactionChangesService,
    TransactionChangesRetention,
    TransactionRepository,
    SyncRunsModule,
  ],
})
export class SyncModule {}
