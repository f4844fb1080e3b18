import { dataOf, type RawClient } from './http-transport.js';
import type { Lookup } from './models.js';

/**
 * `bff.lookup(id)`: what a tracing id, a customer's reference, or the id of a sync run, a payment, an
 * event or a delivery, names among the merchant's customers, runs, payments, events and deliveries, and
 * what those lead to (merchant key only).
 */
export function lookupOf(raw: RawClient): (id: string) => Promise<Lookup> {
  return (id) => dataOf(raw.GET('/v1/lookup', { params: { query: { id } } }));
}
