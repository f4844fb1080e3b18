import { Module } from '@nestjs/common';
import { UpstreamWebhookRegistrationService } from './upstream-webhook-registration.service.js';
import { UpstreamWebhookRepository } from './upstream-webhook.repository.js';

/** Events in: our receiver's registrations with the upstream, the inbox and its fan-out. */
@Module({
  providers: [UpstreamWebhookRepository, UpstreamWebhookRegistrationService],
  exports: [UpstreamWebhookRepository, UpstreamWebhookRegistrationService],
})
export class InboxModule {}
