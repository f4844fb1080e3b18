import { type DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { CoreModule, type CoreOptions } from '#libs/core';
import { AccountsModule } from '#libs/domain/accounts';
import { AuditModule } from '#libs/domain/audit';
import { ConsentsModule } from '#libs/domain/consents';
import { EventsModule } from '#libs/domain/events';
import { InboxModule } from '#libs/domain/inbox';
import { InstitutionsModule } from '#libs/domain/institutions';
import { MerchantsModule } from '#libs/domain/merchants';
import { PaymentsModule } from '#libs/domain/payments';
import { SyncModule } from '#libs/domain/sync';
import { UpstreamCallsModule } from '#libs/domain/upstream-calls';
import { ConsentsProcessor } from './consents/consents.processor.js';
import { EventsProcessor } from './events/events.processor.js';
import { OutboxRelayListener } from './events/outbox-relay.listener.js';
import { JobHandlersCheck } from './job-handlers.check.js';
import { JobSchedulesBootstrap } from './job-schedules.bootstrap.js';
import { MaintenanceProcessor } from './maintenance/maintenance.processor.js';
import { RetentionService } from './maintenance/retention.service.js';
import { DatabaseMetricsCollector } from './metrics/database-metrics.collector.js';
import { DatabaseSnapshotService } from './metrics/database-snapshot.service.js';
import { QueueMetricsCollector } from './metrics/queue-metrics.collector.js';
import { WorkerMetricsServer } from './metrics/worker-metrics.server.js';
import { PaymentsProcessor } from './payments/payments.processor.js';
import { SyncProcessor } from './sync/sync.processor.js';

@Module({})
export class WorkerModule {
  static forRoot(options: CoreOptions): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        CoreModule.forRoot(options),
        DiscoveryModule,
        AccountsModule,
        AuditModule,
        ConsentsModule,
        SyncModule,
        InstitutionsModule,
        EventsModule,
        InboxModule,
        MerchantsModule,
        PaymentsModule,
        UpstreamCallsModule,
      ],
      providers: [
        RetentionService,
        MaintenanceProcessor,
        ConsentsProcessor,
        SyncProcessor,
        EventsProcessor,
        PaymentsProcessor,
        OutboxRelayListener,
        JobHandlersCheck,
        JobSchedulesBootstrap,
        QueueMetricsCollector,
        DatabaseSnapshotService,
        DatabaseMetricsCollector,
        WorkerMetricsServer,
      ],
    };
  }
}
