// Looking up a tracing id, a customer's reference, or any id, across customers, sync runs, payments,
// events and deliveries: the api searches them (GET /v1/lookup), the upstream's call logs among them, and
// each run and payment found shows its own call log.
import { bff } from './api.js';
import { loadInto } from './loading.js';
import { eventTypeText } from './merchant-endpoints.js';
import { eventsTable } from './merchant-events.js';
import { upstreamCalls } from './merchant-upstream-calls.js';
import { h, itemTable, plain, section, table, when } from './ui.js';

/** @typedef {import('./merchant-sdk.js').Lookup} Lookup */

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
    itemTable(
      'Sync runs',
      ['Asked', 'Status', 'Problem', 'Upstream tracing id', 'Run', 'Account'],
      syncRuns,
      (run) => [
        when(run.queuedAt),
        plain('run', run.status),
        run.error ? `${run.error.message ?? 'No message'} (${run.error.code})` : 'None',
        run.error?.upstream?.tracingId ? h('code', {}, String(run.error.upstream.tracingId)) : '—',
        h('code', {}, run.id),
        h('a', { href: `#/accounts/${run.accountId}` }, 'Its account'),
      ],
      (run) => upstreamCalls('run', run.id, `of the run ${run.id}`),
    ),
    ...newestOnly(more, syncRuns, 'runs'),
  ]);

/**
 * @param {Lookup['payments']} payments
 * @param {boolean} more
 */
const paymentsFound = (payments, more) =>
  foundPart('Payments', 'lookup-payments', payments, 'No payment has this tracing id or id.', () => [
    itemTable(
      'Payments',
      ['Made', 'Kind', 'Amount', 'Status', 'Payment', 'Customer'],
      payments,
      (payment) => [
        when(payment.createdAt),
        payment.kind === 'VRP' ? 'Variable recurring' : 'Single',
        h('span', { class: 'mono' }, `${payment.amount.amount} ${payment.amount.currency}`),
        payment.statusReason
          ? `${payment.status} (as the api names it): ${payment.statusReason}`
          : `${payment.status} (as the api names it)`,
        h('code', {}, payment.id),
        h('a', { href: `#/customers/${payment.userId}` }, 'Its customer'),
      ],
      (payment) => upstreamCalls('payment', payment.id, `of the payment ${payment.id}`),
    ),
    ...newestOnly(more, payments, 'payments'),
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
    render: ({ found: { users, syncRuns, payments, events, deliveries, more }, urls }) => [
      customersFound(users),
      runsFound(syncRuns, more.syncRuns),
      paymentsFound(payments, more.payments),
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
      'Paste a tracing id (the upstream’s, from a sync run’s problem or any upstream call, or the tracing id the api answered one of your requests with), a customer’s reference, or the id of a customer, a sync run, a payment, an event or a delivery: the api finds the customers, sync runs, payments, events and deliveries it names, as long as it keeps them, and what they lead to (a run’s or payment’s upstream calls, a run’s events, an event’s deliveries).',
    ),
    lookupForm(results),
    results,
  );
}
