import { Module } from '@nestjs/common';
import { ConsentsModule } from '#libs/domain/consents';
import { EventsModule } from '#libs/domain/events';
import { InboxModule } from '#libs/domain/inbox';
import { InstitutionsModule } from '#libs/domain/institutions';
import { MerchantsModule } from '#libs/domain/merchants';
import { AdminConsentsController } from './admin-consents.controller.js';
import { AdminEventEndpointsController } from './admin-event-endpoints.controller.js';
import { AdminInstitutionsController } from './admin-institutions.controller.js';
import { AdminMerchantsController } from './admin-merchants.controller.js';
import { AdminUpstreamController } from './admin-upstream.controller.js';
import { AdminUpstreamWebhooksController } from './admin-upstream-webhooks.controller.js';
import { QueueBoard } from './queue-board.js';

/** Every operator route (/admin, the ADMIN_TOKEN), and the queue board at /admin/queues. */
@Module({
  imports: [MerchantsModule, InstitutionsModule, ConsentsModule, EventsModule, InboxModule],
  controllers: [
    AdminMerchantsController,
    AdminUpstreamController,
    AdminInstitutionsController,
    AdminConsentsController,
    AdminUpstreamWebhooksController,
    AdminEventEndpointsController,
  ],
  providers: [QueueBoard],
})
export class AdminApiModule {}
