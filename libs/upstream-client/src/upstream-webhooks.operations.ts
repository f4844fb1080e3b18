import type {
  EventSubscription,
  RegisteredWebhook,
  RegisterWebhookRequest,
  ResetWebhookSecretRequest,
  Webhook,
  WebhookCategory,
} from './upstream.types.js';
import type { UpstreamClientCore } from './upstream-client.core.js';
import { type CallOptions, segment } from './upstream-request.js';

/**
 * How the upstream tells the BFF of events (spec §4.7): webhooks, and the deprecated notification
 * subscriptions still listed so they can be removed. `upstream.webhooks`.
 */
export class UpstreamWebhooksOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  /** GET /notifications/event-subscriptions. */
  listEventSubscriptions(options?: CallOptions) {
    return this.core.send<EventSubscription[]>(
      {
        operation: 'getEventSubscriptions',
        consent: 'none',
        method: 'GET',
        path: '/notifications/event-subscriptions',
      },
      options,
    );
  }

  /** DELETE /notifications/event-subscriptions/{eventTypeId}. */
  deleteEventSubscription(eventTypeId: string, options?: CallOptions) {
    return this.core.send<EventSubscription & { deleteStatus?: string }>(
      {
        operation: 'deleteEventSubscriptionById',
        consent: 'none',
        method: 'DELETE',
        path: `/notifications/event-subscriptions/${segment(eventTypeId)}`,
        goneOnRetry: { eventTypeId, deleteStatus: 'SUCCESS' },
      },
      options,
    );
  }

  /** GET /webhook/events/categories (the answer's meta member is called `metadata`). */
  getCategories(options?: CallOptions) {
    return this.core.send<{ categories: WebhookCategory[] }>(
      {
        operation: 'getWebhookCategories',
        consent: 'none',
        method: 'GET',
        path: '/webhook/events/categories',
      },
      options,
    );
  }

  /** POST /webhook/events. The answer's `webhookSecret` is shown once: store it before anything else. */
  register(body: RegisterWebhookRequest, options?: CallOptions) {
    return this.core.send<RegisteredWebhook>(
      { operation: 'registerWebhook', consent: 'none', method: 'POST', path: '/webhook/events', body },
      options,
    );
  }

  /** GET /webhook/events: the registered webhooks. */
  list(options?: CallOptions) {
    return this.core.send<{ active: Webhook[] }>(
      { operation: 'getRegisteredWebhooks', consent: 'none', method: 'GET', path: '/webhook/events' },
      options,
    );
  }

  /**
   * POST /webhook/secrets/{webhookId}: a new `webhookSecret`, shown once like the first. The old secret
   * keeps signing deliveries beside the new one for `delay` seconds.
   */
  resetSecret(webhookId: string, body: ResetWebhookSecretRequest, options?: CallOptions) {
    return this.core.send<RegisteredWebhook>(
      {
        operation: 'resetWebhookSecret',
        consent: 'none',
        method: 'POST',
        path: `/webhook/secrets/${segment(webhookId)}`,
        body,
      },
      options,
    );
  }

  /** DELETE /webhook/events/{webhookId}. */
  delete(webhookId: string, options?: CallOptions) {
    return this.core.send<Webhook>(
      {
        operation: 'deleteWebhook',
        consent: 'none',
        method: 'DELETE',
        path: `/webhook/events/${segment(webhookId)}`,
        goneOnRetry: { id: webhookId },
      },
      options,
    );
  }
}
