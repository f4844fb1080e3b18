import { dataOf, type RawClient } from './http-transport.js';
import type { Lookup } from './models.js';

/**
 * `bff.lookup(id)`: what a tracing id, or the id of a sync run, an event or a delivery, names among the
 * merchant's runs, events and deliveries, and what those lead to (merchant key only).
 */
export function lookupOf(raw: RawClient): (id: string) => Promise<Lookup> {
  return (id) => dataOf(raw.GET('/v1/lookup', { params: { query: { id } } }));
}
