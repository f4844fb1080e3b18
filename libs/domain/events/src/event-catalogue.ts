/**
 * The events merchants receive (docs/events.md): one closed catalogue, the only place an event's name is
 * written (eslint's events/event-name refuses it elsewhere, unless the compiler holds it to this list).
 * Each name has what it means and `data`: the OpenAPI component its `data` is, declared once in
 * apps/api/src/events/outputs/merchant-events/. Made from this list: each type's event schema and their
 * union (MerchantEventOutput), GET /v1/event-types (which the console reads its event words from), and
 * docs/events.md's list (scripts/events-table.mjs). Stored as the `merchant_event_type` enum's values:
 * `npm run db:migration -- <name>` writes schema.prisma's enum from this list (scripts/event-enum.mjs) and
 * the migration that extends it. Delivered to endpoints and streams in one wire shape, {@link MerchantEventWire}.
 */
export const MERCHANT_EVENT_TYPES = {
  'consent.authorized': {
    description: 'The user authorised a consent at their bank; for data consents the first sync is queued.',
    data: 'ConsentEventData',
  },
  'consent.failed': {
    description: 'An authorisation ended without success (rejected, failed or abandoned at the bank).',
    data: 'ConsentEndedEventData',
  },
  'consent.expiring': {
    description: 'A data consent expires soon (see expiresAt); ask the user to re-authorise.',
    data: 'ConsentEventData',
  },
  'consent.reauthorisation_required': {
    description:
      'The consent needs the user to renew it: send them to reauthorisationUrl. userPresenceRequired: the bank renews only with the user present, so the consent stays AUTHORIZED until its expiry and the URL is ours: its page asks the bank when the user continues from it (opening it asks nothing); otherwise the bank was asked already and access is suspended (AWAITING_RE_AUTHORIZATION) until they approve.',
    data: 'ConsentReauthorisationEventData',
  },
  'consent.reauthorisation_not_extended': {
    description:
      'The user completed a re-authorisation, but the bank did not extend the consent (expiresAt is where it was, or within the warning window). No new re-authorisation is asked for; to keep the data flowing, connect the bank again (POST /v1/users/{userId}/consents): the accounts carry over.',
    data: 'ConsentEventData',
  },
  'consent.expired': {
    description:
      'The consent expired: its accounts stop syncing; what was synced stays readable. To resume, connect the bank again (POST /v1/users/{userId}/consents): the accounts carry over.',
    data: 'ConsentEndedEventData',
  },
  'consent.revoked': {
    description:
      'The consent was revoked (by the user, the bank or the merchant): its accounts stop syncing. To resume, connect the bank again (POST /v1/users/{userId}/consents): the accounts carry over.',
    data: 'ConsentEndedEventData',
  },
  'consent.synced': {
    description:
      'Every account of the consent finished its first sync (each succeeded or failed): the connection is ready. accounts lists each first sync with the transactions it stored; inserted is their sum.',
    data: 'ConsentSyncedEventData',
  },
  'sync.succeeded': {
    description: 'A sync of one account finished; progress holds the counts.',
    data: 'SyncEventData',
  },
  'sync.failed': {
    description: 'A sync of one account failed for good; error says why.',
    data: 'SyncFailedEventData',
  },
  'transactions.changed': {
    description: 'A sync inserted, updated or removed transactions of the account (counts and window).',
    data: 'SyncEventData',
  },
  'payment.completed': {
    description:
      'A payment reached a successful final status at the bank; statusReason says why when known (a person’s note after checking with the bank).',
    data: 'PaymentEventData',
  },
  'payment.failed': {
    description:
      'A payment reached a failed final status at the bank; statusReason says why when known (the bank’s reason, or a person’s note after checking with the bank).',
    data: 'PaymentEventData',
  },
  'payment.held_for_review': {
    description:
      'A payment may or may not have been paid (a repeated send was refused after an earlier one went unanswered, or the bank gave no final status in 7 days): it stays SUBMITTING or PENDING and counts against VRP limits while a person checks with the bank, since heldSince. payment.completed or payment.failed follows once they settle it, with their note as statusReason. Tell the user the payment is being checked; do not offer to pay again.',
    data: 'PaymentHeldEventData',
  },
  'endpoint.disabled': {
    description:
      'One of the merchant’s event endpoints was disabled after no delivery to it succeeded for too long (GET /v1/event-delivery-policy: disableAfterHours); sent to the merchant’s other endpoints, never to that one, and without a user. Fix it, enable it (POST /v1/event-endpoints/{id}/enable), then recover what it missed (POST /v1/event-endpoints/{id}/recover with since = failingSince).',
    data: 'EndpointDisabledEventData',
  },
} as const satisfies Record<string, { description: string; data: string }>;

export type MerchantEventType = keyof typeof MERCHANT_EVENT_TYPES;
export const MERCHANT_EVENT_TYPE_NAMES = Object.keys(MERCHANT_EVENT_TYPES) as MerchantEventType[];

export function isMerchantEventType(value: unknown): value is MerchantEventType {
  return typeof value === 'string' && Object.hasOwn(MERCHANT_EVENT_TYPES, value);
}

/**
 * The one event that is not recorded: sent to one endpoint when its merchant asks
 * (`POST /v1/event-endpoints/{id}/test`), never stored, listed, streamed or fanned out, and not a type an
 * endpoint subscribes to. Its `data` names the endpoint it was sent to.
 */
export const ENDPOINT_TEST_EVENT = {
  type: 'endpoint.test',
  description:
    'A test the merchant asked for (POST /v1/event-endpoints/{id}/test), sent to that endpoint alone; not recorded, listed or streamed.',
  data: 'EndpointTestEventData',
} as const;

/** What an endpoint may receive: a recorded event's type, or the test event's. */
export type DeliveredEventType = MerchantEventType | typeof ENDPOINT_TEST_EVENT.type;

/** Every type an endpoint may receive, each with its meaning and the component its `data` is. */
export const DELIVERED_EVENT_TYPES = {
  ...MERCHANT_EVENT_TYPES,
  [ENDPOINT_TEST_EVENT.type]: {
    description: ENDPOINT_TEST_EVENT.description,
    data: ENDPOINT_TEST_EVENT.data,
  },
} as const satisfies Record<DeliveredEventType, { description: string; data: string }>;

/** The OpenAPI components the events' `data` are: each declared once, under apps/api. */
export type EventDataComponent = (typeof DELIVERED_EVENT_TYPES)[DeliveredEventType]['data'];

/**
 * An event as endpoints receive it (the signed body) and as streams send it (`data:`). `id` is stable
 * across retries and endpoints: receivers deduplicate on it (it is also the `webhook-id` header).
 */
export interface MerchantEventWire {
  id: string;
  type: DeliveredEventType;
  createdAt: string;
  userId: string | null;
  /** The user's reference when the event was recorded; null without a user. */
  userReference: string | null;
  data: Record<string, unknown>;
}
