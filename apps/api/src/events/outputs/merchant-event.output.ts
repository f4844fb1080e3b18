import { ApiProperty, ApiSchema, DECORATORS } from '@nestjs/swagger';
import { DELIVERED_EVENT_TYPES, type DeliveredEventType, type EventDataComponent } from '#libs/domain/events';
import type { UnionSchema } from '../../common/openapi-unions.js';
import * as consentEvents from './merchant-events/consent-events.output.js';
import * as endpointEvents from './merchant-events/endpoint-events.output.js';
import { MerchantEventFields } from './merchant-events/merchant-event-fields.output.js';
import * as paymentEvents from './merchant-events/payment-events.output.js';
import * as syncEvents from './merchant-events/sync-events.output.js';

/**
 * Every `data` schema, by its component name: the catalogue names one per type, so a new type needs no
 * line here, and a name the catalogue gives that no file declares fails to compile.
 */
const EVENT_DATA = { ...consentEvents, ...syncEvents, ...paymentEvents, ...endpointEvents } satisfies Record<
  EventDataComponent,
  new () => object
>;

type DataOf<T extends DeliveredEventType> = InstanceType<
  (typeof EVENT_DATA)[(typeof DELIVERED_EVENT_TYPES)[T]['data']]
>;

/** The members of a type's `data`, in the order its component declares them (`:name` in swagger's list). */
export const dataMembersOf = (type: DeliveredEventType): string[] =>
  (
    Reflect.getMetadata(
      DECORATORS.API_MODEL_PROPERTIES_ARRAY,
      EVENT_DATA[DELIVERED_EVENT_TYPES[type].data].prototype as object,
    ) as string[]
  ).map((key) => key.slice(1));

/** The schema a type's event has: `sync.failed` → SyncFailedEventOutput. */
const componentOf = (type: DeliveredEventType): string =>
  `${type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}EventOutput`;

/**
 * One type's schema, made from the catalogue: `type` its one value, `data` the component the catalogue
 * names, described by what the type means. Made, not written, so a type is declared in the catalogue only.
 */
function eventOutput<T extends DeliveredEventType>(
  type: T,
): new () => MerchantEventFields & {
  type: T;
  data: DataOf<T>;
} {
  const { description, data } = DELIVERED_EVENT_TYPES[type];
  class EventOutput extends MerchantEventFields {}
  // Named as the component, for the document's $refs and for stack traces alike.
  Object.defineProperty(EventOutput, 'name', { value: componentOf(type) });
  ApiProperty({ enum: [type] })(EventOutput.prototype, 'type');
  ApiProperty({ type: EVENT_DATA[data] })(EventOutput.prototype, 'data');
  ApiSchema({ name: componentOf(type), description })(EventOutput);
  return EventOutput as new () => MerchantEventFields & { type: T; data: DataOf<T> };
}

/** Each event type's schema, in the catalogue's order. */
export const MERCHANT_EVENT_OUTPUTS = Object.fromEntries(
  (Object.keys(DELIVERED_EVENT_TYPES) as DeliveredEventType[]).map((type) => [type, eventOutput(type)]),
) as { [T in DeliveredEventType]: ReturnType<typeof eventOutput<T>> };

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
