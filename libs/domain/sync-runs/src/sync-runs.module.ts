import { Module } from '@nestjs/common';
import { Metrics } from '#libs/observability';
import { SyncRequestsService } from './sync-requests.service.js';
import { SyncRunMetrics } from './sync-run.metrics.js';
import { SyncRunRepository } from './sync-run.repository.js';

/**
 * Opening runs and enqueueing them, apart from the sync itself so that the consents library (which starts
 * the first sync) can use it without depending on what the sync depends on. Relies on CoreModule's
 * global database, queue and logger.
 */
@Module({
  providers: [
    SyncRunRepository,
    SyncRequestsService,
    // Made at start on the app's registry: the worker shows the counter from its first scrape, before
    // any run ends, and whatever ends a run injects the one instance.
    {
      provide: SyncRunMetrics,
      useFactory: (metrics: Metrics) => new SyncRunMetrics(metrics.registry),
      inject: [Metrics],
    },
  ],
  exports: [SyncRunRepository, SyncRequestsService, SyncRunMetrics],
})
export class SyncRunsModule {}
