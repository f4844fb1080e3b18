import { Module } from '@nestjs/common';
import { ConsentsModule } from '#libs/domain/consents';
import { PaymentsModule } from '#libs/domain/payments';
import { FanOutService } from './fan-out.service.js';
import { InboundEventRepository } from './inbound-event.repository.js';
import { InboxRetentionService } from './inbox-retention.service.js';
import { InboxStatsRepository } from './inbox-stats.repository.js';
import { InboxSweeperService } from './inbox-sweeper.service.js';
import { UpstreamReceiverCheckService } from './upstream-receiver-check.service.js';
import { UpstreamWebhookRepository } from './upstream-webhook.repository.js';
import { UpstreamWebhookMigrationService } from './upstream-webhook-migration.service.js';
import { UpstreamWebhookRegistrationService } from './upstream-webhook-registration.service.js';
import { WebhookReceiverService } from './webhook-receiver.service.js';

/** Events in: our receiver's registrations with the upstream, the inbox and its fan-out. */
@Module({
  imports: [ConsentsModule, PaymentsModule],
  providers: [
    UpstreamWebhookRepository,
    UpstreamWebhookRegistrationService,
    UpstreamWebhookMigrationService,
    UpstreamReceiverCheckService,
    InboundEventRepository,
    WebhookReceiverService,
    FanOutService,
    InboxSweeperService,
    InboxRetentionService,
    InboxStatsRepository,
  ],
  exports: [
    UpstreamWebhookRegistrationService,
    UpstreamWebhookMigrationService,
    UpstreamReceiverCheckService,
    WebhookReceiverService,
    FanOutService,
    InboxSweeperService,
    InboxRetentionService,
    InboxStatsRepository,
  ],
})
export class InboxModule {}
