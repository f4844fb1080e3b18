import type { DeliveredEventType } from '#libs/domain/events';
import type { UnionSchema } from '../../common/openapi-unions.js';
import {
  ConsentAuthorizedEventOutput,
  ConsentExpiredEventOutput,
  ConsentExpiringEventOutput,
  ConsentFailedEventOutput,
  ConsentReauthorisationNotExtendedEventOutput,
  ConsentReauthorisationRequiredEventOutput,
  ConsentRevokedEventOutput,
} from './merchant-events/consent-events.output.js';
import { EndpointDisabledEventOutput } from './merchant-events/endpoint-events.output.js';
import { EndpointTestEventOutput } from './merchant-events/endpoint-test-event.output.js';
import {
  PaymentCompletedEventOutput,
  PaymentFailedEventOutput,
  PaymentHeldForReviewEventOutput,
} from './merchant-events/payment-events.output.js';
import {
  ConsentSyncedEventOutput,
  SyncFailedEventOutput,
  SyncSucceededEventOutput,
  TransactionsChangedEventOutput,
} from './merchant-events/sync-events.output.js';

/** Each event type's schema: `type` its one value, `data` what that type holds. */
export const MERCHANT_EVENT_OUTPUTS = {
  'consent.authorized': ConsentAuthorizedEventOutput,
  'consent.failed': ConsentFailedEventOutput,
  'consent.expiring': ConsentExpiringEventOutput,
  'consent.reauthorisation_required': ConsentReauthorisationRequiredEventOutput,
  'consent.reauthorisation_not_extended': ConsentReauthorisationNotExtendedEventOutput,
  'consent.expired': ConsentExpiredEventOutput,
  'consent.revoked': ConsentRevokedEventOutput,
  'consent.synced': ConsentSyncedEventOutput,
  'sync.succeeded': SyncSucceededEventOutput,
  'sync.failed': SyncFailedEventOutput,
  'transactions.changed': TransactionsChangedEventOutput,
  'payment.completed': PaymentCompletedEventOutput,
  'payment.failed': PaymentFailedEventOutput,
  'payment.held_for_review': PaymentHeldForReviewEventOutput,
  'endpoint.disabled': EndpointDisabledEventOutput,
  'endpoint.test': EndpointTestEventOutput,
} as const satisfies { [T in DeliveredEventType]: new () => { type: T } };

/** An event as POSTed to a merchant's endpoint (and sent down a user's stream): one of the types'. */
export type MerchantEventOutput = InstanceType<(typeof MERCHANT_EVENT_OUTPUTS)[DeliveredEventType]>;

/**
 * The `MerchantEventOutput` component: one of the types' schemas, told apart by `type` (a discriminated
 * union, for generated clients).
 */
export const MERCHANT_EVENT_OUTPUT: UnionSchema = {
  name: 'MerchantEventOutput',
  description:
    'An event, as POSTed to an endpoint and sent down a user’s stream: `type` says which, and so what `data` holds (one schema per type). Deduplicate on `id`.',
  discriminator: 'type',
  members: MERCHANT_EVENT_OUTPUTS,
};
