/**
 * The event categories a webhook can subscribe to (GET /webhook/events/categories). The upstream shows
 * the two payment ones; the others are the sandbox's plausible additions, emitted by the sandbox's own
 * modules on the matching transitions (and by the control API's emit route).
 */
export const WEBHOOK_CATEGORIES = [
  {
    name: 'payment.state.success',
    description: 'An event sent when payment reaches a terminal successful status',
  },
  {
    name: 'payment.state.failed',
    description: 'An event sent when payment reaches a terminal failed status',
  },
  {
    name: 'payment.state.pending',
    description: 'An event sent when a payment is accepted by the institution but is not yet terminal',
  },
  {
    name: 'consent.state.authorized',
    description: 'An event sent when the user authorises a consent at the institution',
  },
  {
    name: 'consent.state.revoked',
    description: 'An event sent when a consent is revoked by the user or the institution',
  },
  {
    name: 'consent.state.expired',
    description: 'An event sent when a consent expires and can no longer be used',
  },
] as const;

export const WEBHOOK_CATEGORY_NAMES: ReadonlySet<string> = new Set(WEBHOOK_CATEGORIES.map((c) => c.name));

/** The deprecated notification API's event types (openapi: EventSubscriptionRequest.eventTypeId). */
export const NOTIFICATION_EVENT_TYPES = [
  'payment.status',
  'payment.status.completed',
  'payment.isoStatus',
] as const;

/**
 * Which notification subscriptions an event of a webhook category reaches: every payment state change
 * reaches `payment.status` and `payment.isoStatus`; only a successful terminal state reaches
 * `payment.status.completed`. Consent categories have no notification counterpart.
 */
const NOTIFICATION_TYPES_BY_CATEGORY: Record<string, readonly string[]> = {
  'payment.state.success': ['payment.status', 'payment.status.completed', 'payment.isoStatus'],
  'payment.state.failed': ['payment.status', 'payment.isoStatus'],
  'payment.state.pending': ['payment.status', 'payment.isoStatus'],
};

export function notificationTypesFor(category: string): readonly string[] {
  return NOTIFICATION_TYPES_BY_CATEGORY[category] ?? [];
}
