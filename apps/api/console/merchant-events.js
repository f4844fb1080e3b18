// A merchant's events: newest first, by type, a page at a time (the lookup draws them too).
import { bff } from './api.js';
import { eventWords, subscribableTypes } from './event-types.js';
import { pagedInto } from './loading.js';
import { eventTypeText } from './merchant-endpoints.js';
import { h, section, table, when } from './ui.js';

/** @typedef {import('./merchant-sdk.js').BffEvent} BffEvent */

/**
 * An event's data, folded away: the JSON as the api sent it.
 * @param {BffEvent} event
 */
const dataOf = (event) =>
  h(
    'details',
    {},
    h('summary', {}, h('span', { class: 'visually-hidden' }, `${event.type} ${event.id}: `), 'Data'),
    h('pre', { class: 'mono' }, JSON.stringify(event.data, null, 2)),
  );

/**
 * The customer by their reference (what support hears from them), linked to their page by id.
 * @param {BffEvent} event
 */
const customerLink = (event) =>
  event.userId
    ? h('a', { href: `#/customers/${event.userId}` }, h('code', {}, event.userReference ?? event.userId))
    : '—';

const EVENT_HEADERS = ['When', 'Event', 'Customer', 'Event id', ''];
/** @param {BffEvent} event */
const eventRow = (event) => [
  when(event.createdAt),
  eventTypeText(event.type),
  customerLink(event),
  h('code', {}, event.id),
  dataOf(event),
];
/**
 * @param {string} caption
 * @param {BffEvent[]} events
 */
export const eventsTable = (caption, events) => table(caption, EVENT_HEADERS, events.map(eventRow));

/** What the screen's parts share: the type chosen and the list of its events. */
function eventsView() {
  return {
    results: h('div', { id: 'events-list' }),
    type: h(
      'select',
      { id: 'event-type', name: 'event-type' },
      h('option', { value: '' }, 'Every type'),
      subscribableTypes().map((t) => h('option', { value: t }, `${eventWords(t)} (${t})`)),
    ),
  };
}

/** @typedef {ReturnType<typeof eventsView>} Screen */

/** @param {Screen} screen */
function showEvents(screen) {
  const { type } = screen;
  // Its options are the subscribable types, and '' for every type.
  const chosen = /** @type {ReturnType<typeof subscribableTypes>[number] | ''} */ (type.value);
  const list = bff.events.list({ limit: 50, ...(chosen ? { type: chosen } : {}) });
  return pagedInto(screen.results, {
    what: 'your events',
    load: (cursor) => list.page(cursor),
    empty: type.value ? 'No event of this type.' : 'No event yet.',
    caption: 'Events',
    headers: EVENT_HEADERS,
    row: eventRow,
  });
}

/** @param {HTMLElement} main */
export function eventsScreen(main) {
  const screen = eventsView();
  main.append(
    h('h1', {}, 'Events'),
    h(
      'p',
      {},
      'What the api told your endpoints and streams, newest first, 50 at a time. Test events are not kept.',
    ),
    h(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          void showEvents(screen);
        },
      },
      h('label', { for: 'event-type' }, 'Type'),
      h('div', { class: 'row' }, screen.type, h('button', { type: 'submit' }, 'Show')),
    ),
    section('Events', screen.results),
  );
  void showEvents(screen);
}
