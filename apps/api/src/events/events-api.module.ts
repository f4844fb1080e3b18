import { Module } from '@nestjs/common';
import { InboxModule } from '#libs/domain/inbox';
import { MerchantsModule } from '#libs/domain/merchants';
import { AdminUpstreamWebhooksController } from '../admin/admin-upstream-webhooks.controller.js';

/** Events: the upstream webhook receiver and its registration, merchant endpoints, live streams. */
@Module({
  imports: [InboxModule, MerchantsModule],
  controllers: [AdminUpstreamWebhooksController],
})
export class EventsApiModule {}
