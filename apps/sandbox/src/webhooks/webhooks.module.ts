import { Module } from '@nestjs/common';
import { NotificationsController } from './notifications.controller.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksStore } from './webhooks.store.js';
import { WebhooksAdminController } from './webhooks-admin.controller.js';

/** Webhooks, the deprecated notification API, and the signed delivery of every SandboxEvent. */
@Module({
  controllers: [WebhooksController, NotificationsController, WebhooksAdminController],
  providers: [WebhooksStore, WebhookDeliveryService],
})
export class WebhooksModule {}
