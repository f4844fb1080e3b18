import { Module } from '@nestjs/common';
import { AuditModule } from '#libs/domain/audit';
import { ConsentsModule } from '#libs/domain/consents';
import { EventsModule } from '#libs/domain/events';
import { InboxModule } from '#libs/domain/inbox';
import { InstitutionsModule } from '#libs/domain/institutions';
import { MerchantsModule } from '#libs/domain/merchants';
import { PaymentsModule } from '#libs/domain/payments';
import { AuthModule } from '../common/auth/auth.module.js';
import { AdminAuditController } from './admin-audit.controller.js';
import { AdminConsentsController } from './admin-consents.controller.js';
import { AdminEventEndpointsController } from './admin-event-endpoints.controller.js';
import { AdminInstitutionsController } from './admin-institutions.controller.js';
import { AdminMerchantsController } from './admin-merchants.controller.js';
import { AdminPaymentsController } from './admin-payments.controller.js';
import { AdminUpstreamController } from './admin-upstream.controller.js';
import { AdminUpstreamWebhooksController } from './admin-upstream-webhooks.controller.js';
import { QueueBoard } from './queue-board.js';
import { UpstreamReceiverRegistrar } from './upstream-receiver.registrar.js';

/** Every operator route (/admin, the ADMIN_TOKEN), and the queue board at /admin/queues. */
@Module({
  imports: [
    MerchantsModule,
    InstitutionsModule,
    ConsentsModule,
    EventsModule,
    InboxModule,
    PaymentsModule,
    AuditModule,
    AuthModule,
  ],
  controllers: [
    AdminMerchantsController,
    AdminUpstreamController,
    AdminInstitutionsController,
    AdminConsentsController,
    AdminUpstreamWebhooksController,
    AdminEventEndpointsController,
    AdminPaymentsController,
    AdminAuditController,
  ],
  providers: [QueueBoard, UpstreamReceiverRegistrar],
})
export class AdminApiModule {}
