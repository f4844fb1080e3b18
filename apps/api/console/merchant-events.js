// A merchant's events (newest first, by type, a page at a time), and looking up a tracing id, or any id,
// across customers, sync runs, events and deliveries: the api searches them (GET /v1/lookup).
import { bff } from './api.js';
import { loadInto, pagedInto } from './loading.js';
import { eventTypeText } from './merchant-endpoints.js';
import { EVENT_TYPES, h, plain, section, table, when } from './ui.js';

/** @typedef {import('./merchant-sdk.js').BffEvent} BffEvent */
/** @typedef {import('./merchant-sdk.js').Lookup} Lookup */

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
const eventsTable = (caption, events) => table(caption, EVENT_HEADERS, events.map(eventRow));

/** What the screen's parts share: the type chosen and the list of its events. */
function eventsView() {
  return {
    results: h('div', { id: 'events-list' }),
    type: h(
      'select',
      { id: 'event-type', name: 'event-type' },
      h('option', { value: '' }, 'Every type'),
      EVENT_TYPES.map((t) => h('option', { value: t }, `${plain('eventType', t)} (${t})`)),
    ),
  };
}

/** @typedef {ReturnType<typeof eventsView>} Screen */

/** @param {Screen} screen */
function showEvents(screen) {
  const { type } = screen;
  // Its options are EVENT_TYPES', and '' for every type.
  const chosen = /** @type {(typeof EVENT_TYPES)[number] | ''} */ (type.value);
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

/**
 * The api answers a lookup's newest few of each kind (GET /v1/lookup); `more` says there were others.
 * @param {boolean} more
 * @param {readonly unknown[]} list only its length is said
 * @param {string} what
 */
const newestOnly = (more, list, what) =>
  more ? [h('p', { class: 'muted' }, `Only the newest ${list.length} ${what} are shown.`)] : [];

/**
 * One kind of what a lookup found: its section, with `none` when the api found nothing of it.
 * @param {string} title
 * @param {string} id the container's
 * @param {readonly unknown[]} found only whether it is empty is read
 * @param {string} none
 * @param {() => import('./ui.js').Children} shown what was found, drawn
 */
const foundPart = (title, id, found, none, shown) =>
  section(title, h('div', { id }, found.length === 0 ? h('p', { class: 'state' }, none) : shown()));

/** @param {Lookup['users']} users */
const customersFound = (users) =>
  foundPart('Customers', 'lookup-customers', users, 'No customer has this reference or id.', () =>
    table(
      'Customers',
      ['Customer', 'Id', 'Since'],
      users.map((user) => [
        h('a', { href: `#/customers/${user.id}` }, user.reference),
        h('code', {}, user.id),
        when(user.createdAt),
      ]),
    ),
  );

/**
 * @param {Lookup['syncRuns']} syncRuns
 * @param {boolean} more
 */
const runsFound = (syncRuns, more) =>
  foundPart('Sync runs', 'lookup-runs', syncRuns, 'No sync run has this tracing id or id.', () => [
    table(
      'Sync runs',
      ['Asked', 'Status', 'Problem', 'Upstream tracing id', 'Run', 'Account'],
      syncRuns.map((run) => [
        when(run.queuedAt),
        plain('run', run.status),
        run.error ? `${run.error.message ?? 'No message'} (${run.error.code})` : 'None',
        run.error?.upstream?.tracingId ? h('code', {}, String(run.error.upstream.tracingId)) : '—',
        h('code', {}, run.id),
        h('a', { href: `#/accounts/${run.accountId}` }, 'Its account'),
      ]),
    ),
    ...newestOnly(more, syncRuns, 'runs'),
  ]);

/**
 * @param {Lookup['events']} events
 * @param {boolean} more
 */
const eventsFound = (events, more) =>
  foundPart(
    'Events',
    'lookup-events',
    events,
    'No event has this id, came from this request or is about those runs.',
    () => [eventsTable('Events', events), ...newestOnly(more, events, 'events')],
  );

/**
 * `urls` names each delivery's endpoint by its address.
 * @param {Lookup['deliveries']} deliveries
 * @param {boolean} more
 * @param {Map<string, string>} urls
 */
const deliveriesFound = (deliveries, more, urls) =>
  foundPart(
    'Deliveries',
    'lookup-deliveries',
    deliveries,
    'No delivery has this id or is of those events.',
    () => [
      table(
        'Deliveries',
        ['Event', 'Event id', 'Endpoint', 'Status', 'Attempts', 'Last attempt'],
        deliveries.map((delivery) => [
          eventTypeText(delivery.eventType),
          h('code', {}, delivery.eventId),
          h(
            'a',
            { href: `#/event-endpoints/${delivery.endpointId}` },
            urls.get(delivery.endpointId) ?? delivery.endpointId,
          ),
          plain('delivery', delivery.status),
          String(delivery.attempts),
          when(delivery.lastAttemptAt),
        ]),
      ),
      ...newestOnly(more, deliveries, 'deliveries'),
    ],
  );

/**
 * The api's answer, and the endpoints' addresses to name each delivery's (a short list).
 * @param {HTMLElement} results
 * @param {string} id
 */
function lookUp(results, id) {
  return loadInto(results, {
    what: `what ${id} names`,
    load: async () => {
      const [found, endpoints] = await Promise.all([bff.lookup(id), bff.eventEndpoints.list()]);
      return { found, urls: new Map(endpoints.map((endpoint) => [endpoint.id, endpoint.url])) };
    },
    render: ({ found: { users, syncRuns, events, deliveries, more }, urls }) => [
      customersFound(users),
      runsFound(syncRuns, more.syncRuns),
      eventsFound(events, more.events),
      deliveriesFound(deliveries, more.deliveries, urls),
    ],
  });
}

/** @param {HTMLElement} results */
function lookupForm(results) {
  const needle = h('input', {
    id: 'lookup-id',
    name: 'lookup-id',
    required: true,
    autocomplete: 'off',
    maxlength: 255,
  });
  return h(
    'form',
    {
      role: 'search',
      onsubmit: (event) => {
        event.preventDefault();
        void lookUp(results, needle.value.trim());
      },
    },
    h('label', { for: 'lookup-id' }, 'Tracing id, customer reference or other id'),
    h('div', { class: 'row' }, needle, h('button', { type: 'submit' }, 'Look up')),
  );
}

/** @param {HTMLElement} main */
export function lookupScreen(main) {
  const results = h('div', { id: 'lookup-results' });
  main.append(
    h('h1', {}, 'Look up a tracing id'),
    h(
      'p',
      {},
      'Paste a tracing id (from a sync run’s problem, or the tracing id the api answered one of your requests with), a customer’s reference, or the id of a customer, a sync run, an event or a delivery: the api finds the customers, sync runs, events and deliveries it names, as long as it keeps them, and what they lead to (a run’s events, an event’s deliveries).',
    ),
    lookupForm(results),
    results,
  );
}
