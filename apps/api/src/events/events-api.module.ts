import { Module } from '@nestjs/common';
import { EventsModule } from '#libs/domain/events';
import { InboxModule } from '#libs/domain/inbox';
import { MerchantsModule } from '#libs/domain/merchants';
import { AdminEventEndpointsController } from '../admin/admin-event-endpoints.controller.js';
import { AdminUpstreamWebhooksController } from '../admin/admin-upstream-webhooks.controller.js';
import { EventEndpointsController } from './event-endpoints.controller.js';
import { UpstreamWebhookController } from '../webhooks/upstream-webhook.controller.js';
import { UserEventStreams } from './user-event-streams.js';
import { UserEventsController } from './user-events.controller.js';

/** Events: the upstream webhook receiver and its registration, merchant endpoints, live streams. */
@Module({
  imports: [InboxModule, EventsModule, MerchantsModule],
  controllers: [
    UpstreamWebhookController,
    EventEndpointsController,
    UserEventsController,
    AdminUpstreamWebhooksController,
    AdminEventEndpointsController,
  ],
  providers: [UserEventStreams],
})
export class EventsApiModule {}
