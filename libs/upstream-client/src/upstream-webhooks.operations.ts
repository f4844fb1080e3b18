import type {
  EventSubscription,
  RegisteredWebhook,
  RegisterWebhookRequest,
  ResetWebhookSecretRequest,
  Webhook,
  WebhookCategory,
} from './upstream.types.js';
import type { UpstreamClientCore } from './upstream-client.core.js';
import type { CallOptions } from './upstream-request.js';

/**
 * How the upstream tells the BFF of events (spec §4.7): webhooks, and the deprecated notification
 * subscriptions still listed so they can be removed. `upstream.webhooks`.
 */
export class UpstreamWebhooksOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  /** GET /notifications/event-subscriptions. */
  listEventSubscriptions(options?: CallOptions) {
    return this.core.call<EventSubscription[]>('getEventSubscriptions', {}, options);
  }

  /** DELETE /notifications/event-subscriptions/{eventTypeId}. */
  deleteEventSubscription(eventTypeId: string, options?: CallOptions) {
    const parts = { ids: { eventTypeId }, goneOnRetry: { eventTypeId, deleteStatus: 'SUCCESS' } };
    return this.core.call<EventSubscription & { deleteStatus?: string }>(
      'deleteEventSubscriptionById',
      parts,
      options,
    );
  }

  /** GET /webhook/events/categories (the answer's meta member is called `metadata`). */
  getCategories(options?: CallOptions) {
    return this.core.call<{ categories: WebhookCategory[] }>('getWebhookCategories', {}, options);
  }

  /** POST /webhook/events. The answer's `webhookSecret` is shown once: store it before anything else. */
  register(body: RegisterWebhookRequest, options?: CallOptions) {
    return this.core.call<RegisteredWebhook>('registerWebhook', { body }, options);
  }

  /** GET /webhook/events: the registered webhooks. */
  list(options?: CallOptions) {
    return this.core.call<{ active: Webhook[] }>('getRegisteredWebhooks', {}, options);
  }

  /**
   * POST /webhook/secrets/{webhook_id}: a new `webhookSecret`, shown once like the first. The old secret
   * keeps signing deliveries beside the new one for `delay` seconds.
   */
  resetSecret(webhookId: string, body: ResetWebhookSecretRequest, options?: CallOptions) {
    return this.core.call<RegisteredWebhook>(
      'resetWebhookSecret',
      { ids: { webhook_id: webhookId }, body },
      options,
    );
  }

  /** DELETE /webhook/events/{webhook_id}. */
  delete(webhookId: string, options?: CallOptions) {
    const parts = { ids: { webhook_id: webhookId }, goneOnRetry: { id: webhookId } };
    return this.core.call<Webhook>('deleteWebhook', parts, options);
  }
}
