import { Module } from '@nestjs/common';
import { AccountsModule } from '#libs/domain/accounts';
import { ConsentsModule } from '#libs/domain/consents';
import { EventsModule } from '#libs/domain/events';
import { PaymentsModule } from '#libs/domain/payments';
import { SyncRunsModule } from '#libs/domain/sync-runs';
import { UsersModule } from '#libs/domain/users';
import { AccountSyncService } from './account-sync.service.js';
import { StoredPageCache } from './stored-page.cache.js';
import { SyncService } from './sync.service.js';
import { SyncAttemptFailureService } from './sync-attempt-failure.service.js';
import { SyncDispatcherService } from './sync-dispatcher.service.js';
import { SyncEndEventsService } from './sync-end-events.service.js';
import { SyncRunEndingService } from './sync-run-ending.service.js';
import { SyncRunReportService } from './sync-run-report.service.js';
import { SyncSideReadsService } from './sync-side-reads.service.js';
import { SyncWindowService } from './sync-window.service.js';
import { SyncedDataService } from './synced-data.service.js';
import { TracingLookupService } from './tracing-lookup.service.js';
import { TransactionRepository } from './transaction.repository.js';
import { TransactionChangeRepository } from './transaction-change.repository.js';
import { TransactionChangesService } from './transaction-changes.service.js';
import { TransactionChangesRetentionService } from './transaction-changes-retention.service.js';

/** The sync engine (worker side) and its merchant-facing reads (api side). */
@Module({
  imports: [AccountsModule, ConsentsModule, EventsModule, PaymentsModule, SyncRunsModule, UsersModule],
  providers: [
    TransactionRepository,
    TransactionChangeRepository,
    TransactionChangesService,
    TransactionChangesRetentionService,
    StoredPageCache,
    SyncSideReadsService,
    SyncAttemptFailureService,
    AccountSyncService,
    SyncedDataService,
    SyncEndEventsService,
    SyncRunReportService,
    SyncRunEndingService,
    SyncWindowService,
    SyncDispatcherService,
    SyncService,
    TracingLookupService,
  ],
  exports: [
    AccountSyncService,
    SyncDispatcherService,
    SyncService,
    TracingLookupService,
    TransactionChangesService,
    TransactionChangesRetentionService,
    SyncRunsModule,
  ],
})
export class SyncModule {}
