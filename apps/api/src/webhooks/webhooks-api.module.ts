import { Module } from '@nestjs/common';
import { InboxModule } from '#libs/domain/inbox';
import { UpstreamWebhookController } from './upstream-webhook.controller.js';

/** Events in: the upstream's webhook receiver (docs/events.md, "Events in"). */
@Module({
  imports: [InboxModule],
  controllers: [UpstreamWebhookController],
})
export class WebhooksApiModule {}
