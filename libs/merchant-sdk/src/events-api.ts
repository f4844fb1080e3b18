import { type EventStream, type EventStreamOptions, openEventStream } from './event-stream.js';
import {
  type CreateOptions,
  dataOf,
  doneOf,
  envelopeOf,
  idempotencyHeader,
  type RawClient,
} from './http-transport.js';
import type { Body, Data, EventDelivery, EventDeliveryAttempt, EventEndpoint, Query } from './models.js';
import { type PagedList, pagedList } from './paging.js';

type EndpointPath = '/v1/event-endpoints/{id}';

/** The merchant backend's webhook endpoints and their deliveries (merchant key only). */
export interface EventEndpointsApi {
  /**
   * Subscribes `url` to the given event types (all when none). The answer's `secret` (`whsec_…`) is shown
   * this once: keep it to verify deliveries with `verifyEvent`.
   */
  create(
    input: Body<'/v1/event-endpoints', 'post'>,
    options?: CreateOptions,
  ): Promise<Data<'/v1/event-endpoints', 'post'>>;
  /** Every endpoint of the merchant: the whole list in one answer. */
  list(): Promise<EventEndpoint[]>;
  get(id: string): Promise<EventEndpoint>;
  /** A new address or new types (omitted: unchanged); pending deliveries go to the new address. */
  update(id: string, change: Body<EndpointPath, 'patch'>): Promise<EventEndpoint>;
  /** Deletes the endpoint and its delivery log. */
  delete(id: string): Promise<void>;
  /** A new secret; for 24 h deliveries carry a signature of each, so you can switch at leisure. */
  rotateSecret(id: string): Promise<Data<`${EndpointPath}/secret`, 'post'>>;
  /** Turns an endpoint disabled after 72 h of failures back on. */
  enable(id: string): Promise<EventEndpoint>;
  /** Sends the endpoint a signed `endpoint.test` event now, once: what it answered (nothing is recorded). */
  test(id: string): Promise<Data<`${EndpointPath}/test`, 'post'>>;
  /** The endpoint's deliveries, newest first: status, attempts, the last answer. */
  deliveries(id: string, query?: Query<`${EndpointPath}/deliveries`>): PagedList<EventDelivery>;
  /**
   * One delivery's attempts, newest first: each one's request (headers, the body as signed) and what
   * came back (status and the start of the body) or the error.
   */
  attempts(
    id: string,
    deliveryId: string,
    query?: Query<`${EndpointPath}/deliveries/{deliveryId}/attempts`>,
  ): PagedList<EventDeliveryAttempt>;
  /** Sends one delivery again now, same event id and body. */
  retryDelivery(id: string, deliveryId: string): Promise<EventDelivery>;
  /**
   * Sends again every delivery that failed for good since `since` (an ISO time), a bounded batch a call:
   * call again while the answer's `more` is true. Never sends a delivery twice; the endpoint must be enabled.
   */
  recover(
    id: string,
    input: Body<`${EndpointPath}/recover`, 'post'>,
    options?: CreateOptions,
  ): Promise<Data<`${EndpointPath}/recover`, 'post'>>;
}

export interface EventsApi {
  /**
   * The merchant's events, newest first, as sent to its endpoints and streams (merchant key only): to
   * catch up after an endpoint was down, page back to when it stopped and handle the ids not yet seen.
   */
  list(query?: Query<'/v1/events'>): PagedList<Data<'/v1/events/{eventId}'>>;
  get(eventId: string): Promise<Data<'/v1/events/{eventId}'>>;
  /**
   * Every event type an endpoint may receive: what it means, and the JSON Schema (2020-12,
   * self-contained) of the whole event as delivered, to check bodies or generate a receiver's types.
   */
  types(): Promise<Data<'/v1/event-types'>>;
  /** How deliveries are retried, given up on, and endpoints disabled, as this deployment does it. */
  deliveryPolicy(): Promise<Data<'/v1/event-delivery-policy'>>;
  /**
   * The user's events as they happen, in order, each once: `for await (const event of stream)`. Resumes by
   * itself after a dropped connection; give `lastEventId` to resume from a position you stored.
   */
  stream(userId: string, options?: EventStreamOptions): EventStream;
}

export function eventEndpointsApi(raw: RawClient): EventEndpointsApi {
  const at = (id: string) => ({ path: { id } });
  return {
    create: (input, options = {}) =>
      dataOf(
        raw.POST('/v1/event-endpoints', {
          params: { header: idempotencyHeader(options.idempotencyKey) },
          body: input,
        }),
      ),
    list: () => dataOf(raw.GET('/v1/event-endpoints')),
    get: (id) => dataOf(raw.GET('/v1/event-endpoints/{id}', { params: at(id) })),
    update: (id, change) => dataOf(raw.PATCH('/v1/event-endpoints/{id}', { params: at(id), body: change })),
    delete: (id) => doneOf(raw.DELETE('/v1/event-endpoints/{id}', { params: at(id) })),
    rotateSecret: (id) => dataOf(raw.POST('/v1/event-endpoints/{id}/secret', { params: at(id) })),
    enable: (id) => dataOf(raw.POST('/v1/event-endpoints/{id}/enable', { params: at(id) })),
    test: (id) => dataOf(raw.POST('/v1/event-endpoints/{id}/test', { params: at(id) })),
    deliveries: (id, query = {}) =>
      pagedList(
        (q) =>
          envelopeOf(raw.GET('/v1/event-endpoints/{id}/deliveries', { params: { ...at(id), query: q } })),
        query,
      ),
    attempts: (id, deliveryId, query = {}) =>
      pagedList(
        (q) =>
          envelopeOf(
            raw.GET('/v1/event-endpoints/{id}/deliveries/{deliveryId}/attempts', {
              params: { path: { id, deliveryId }, query: q },
            }),
          ),
        query,
      ),
    retryDelivery: (id, deliveryId) =>
      dataOf(
        raw.POST('/v1/event-endpoints/{id}/deliveries/{deliveryId}/retry', {
          params: { path: { id, deliveryId } },
        }),
      ),
    recover: (id, input, options = {}) =>
      dataOf(
        raw.POST('/v1/event-endpoints/{id}/recover', {
          params: { ...at(id), header: idempotencyHeader(options.idempotencyKey) },
          body: input,
        }),
      ),
  };
}

export function eventsApi(raw: RawClient): EventsApi {
  return {
    list: (query = {}) =>
      pagedList((q) => envelopeOf(raw.GET('/v1/events', { params: { query: q } })), query),
    get: (eventId) => dataOf(raw.GET('/v1/events/{eventId}', { params: { path: { eventId } } })),
    types: () => dataOf(raw.GET('/v1/event-types')),
    deliveryPolicy: () => dataOf(raw.GET('/v1/event-delivery-policy')),
    stream: (userId, options) => openEventStream(raw, userId, options),
  };
}
