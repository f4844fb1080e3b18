// The event types, as GET /v1/event-types serves them from the catalogue: the console keeps no list or
// words of its own, so a type the api adds is offered and named here at once. Loaded before a
// merchant's screen is shown (the route needs the merchant's session), then read as it was loaded.

import { bff } from './api.js';

/** @typedef {import('./merchant-sdk.js').EventEndpoint['types'][number]} SubscribableType */

/** @type {Awaited<ReturnType<typeof bff.events.types>>} */
let served = [];

/** Asks the api for its event types, until it has answered once; a failure leaves the names bare. */
export async function loadEventTypes() {
  if (served.length > 0) return;
  served = await bff.events.types().catch(() => []);
}

/** The types an endpoint can take (not `endpoint.test`, sent only when asked for), in the api's order. */
export const subscribableTypes = () =>
  served.filter((type) => type.subscribable).map((type) => /** @type {SubscribableType} */ (type.name));

/**
 * A type in plain words: what the api says it means, up to its first stop and without its asides
 * ("The consent expired"); an unknown one as the api's own name, marked as such.
 * @param {string} name
 */
export function eventWords(name) {
  const description = served.find((type) => type.name === name)?.description;
  if (!description) return `${name} (as the api names it)`;
  return description
    .replace(/\s*\([^)]*\)/g, '')
    .split(/[.;:](?:\s|$)/)[0]
    .trim();
}

/**
 * What a type means in full, for a title.
 * @param {string} name
 */
export const eventMeaning = (name) => served.find((type) => type.name === name)?.description ?? '';
