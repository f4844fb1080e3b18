import { Module } from '@nestjs/common';
import { SyncRequestsService } from './sync-requests.service.js';
import { SyncRunRepository } from './sync-run.repository.js';

/**
 * Opening runs and enqueueing them, apart from the sync itself so that the consents library (which starts
 * the first sync) can use it without depending on what the sync depends on. Relies on CoreModule's
 * global database, queue and logger.
 */
@Module({
  providers: [SyncRunRepository, SyncRequestsService],
  exports: [SyncRunRepository, SyncRequestsService],
})
export class SyncRunsModule {}
