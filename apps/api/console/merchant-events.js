// A merchant's events (newest first, by type), and looking up a tracing id, or any id, across the
// latest events, sync runs and deliveries: the api filters none of them by tracing id, so the console
// searches the pages it loads (docs/console.md says how far).
import { bff } from './api.js';
import { eventTypeText } from './merchant-endpoints.js';
import { EVENT_TYPES, h, loadInto, plain, table, when } from './ui.js';

const section = (title, ...children) => h('section', {}, h('h2', {}, title), ...children);

/** An event's data, folded away: the JSON as the api sent it. */
const dataOf = (event) =>
  h(
    'details',
    {},
    h('summary', {}, h('span', { class: 'visually-hidden' }, `${event.type} ${event.id}: `), 'Data'),
    h('pre', { class: 'mono' }, JSON.stringify(event.data, null, 2)),
  );

const customerLink = (userId) =>
  userId ? h('a', { href: `#/customers/${userId}` }, h('code', {}, userId)) : '—';

const eventsTable = (caption, events) =>
  table(
    caption,
    ['When', 'Event', 'Customer', 'Event id', ''],
    events.map((event) => [
      when(event.createdAt),
      eventTypeText(event.type),
      customerLink(event.userId),
      h('code', {}, event.id),
      dataOf(event),
    ]),
  );

export function eventsScreen(main) {
  const results = h('div', { id: 'events-list' });
  const type = h(
    'select',
    { id: 'event-type', name: 'event-type' },
    h('option', { value: '' }, 'Every type'),
    EVENT_TYPES.map((t) => h('option', { value: t }, `${plain('eventType', t)} (${t})`)),
  );
  let list;
  const page = (cursor) =>
    loadInto(results, {
      what: 'your events',
      load: () => list.page(cursor),
      render: (answer) =>
        answer.items.length === 0
          ? h('p', { class: 'state' }, type.value ? 'No event of this type.' : 'No event yet.')
          : [
              eventsTable('Events', answer.items),
              answer.nextCursor
                ? h('button', { type: 'button', onclick: () => void page(answer.nextCursor) }, 'Next page')
                : h('p', { class: 'muted' }, 'That is all of them.'),
            ],
    });
  const show = () => {
    list = bff.events.list({ limit: 50, ...(type.value ? { type: type.value } : {}) });
    return page();
  };
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
          void show();
        },
      },
      h('label', { for: 'event-type' }, 'Type'),
      h('div', { class: 'row' }, type, h('button', { type: 'submit' }, 'Show')),
    ),
    section('Events', results),
  );
  void show();
}

/** How far the lookup reads: the latest events, and the latest runs and deliveries of what it finds. */
const LIMITS = { events: 100, customers: 50, runs: 20, deliveries: 50 };

const count = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const contains = (item, needle) => JSON.stringify(item).toLowerCase().includes(needle);

/** Every run of the first customers' accounts (the latest of each), every endpoint's latest deliveries. */
async function loadAll() {
  const [events, users, endpoints] = await Promise.all([
    bff.events
      .list({ limit: LIMITS.events })
      .page()
      .then((p) => p.items),
    bff.users
      .list({ limit: LIMITS.customers })
      .page()
      .then((p) => p.items),
    bff.eventEndpoints.list(),
  ]);
  const accounts = (
    await Promise.all(users.map((user) => bff.accounts.list(user.id, { limit: 50 }).page()))
  ).flatMap((p) => p.items);
  const runs = (
    await Promise.all(
      accounts.map((account) =>
        bff.syncs
          .list(account.id, { limit: LIMITS.runs })
          .page()
          .then((p) => p.items.map((run) => ({ ...run, accountId: account.id }))),
      ),
    )
  ).flat();
  const deliveries = (
    await Promise.all(
      endpoints.map((endpoint) =>
        bff.eventEndpoints
          .deliveries(endpoint.id, { limit: LIMITS.deliveries })
          .page()
          .then((p) => p.items.map((delivery) => ({ ...delivery, endpoint }))),
      ),
    )
  ).flat();
  return { events, runs, deliveries, accounts: accounts.length, endpoints: endpoints.length };
}

export function lookupScreen(main) {
  const results = h('div', { id: 'lookup-results' });
  const needle = h('input', { id: 'lookup-id', name: 'lookup-id', required: true, autocomplete: 'off' });

  /**
   * What mentions the id, and what those lead to: a run's events (by its id in their data), an event's
   * deliveries (by its id).
   */
  const lookUp = (id) =>
    loadInto(results, {
      what: `what mentions ${id}`,
      load: async () => {
        const all = await loadAll();
        const wanted = id.toLowerCase();
        const runs = all.runs.filter((run) => contains(run, wanted));
        const runIds = new Set(runs.map((run) => run.id));
        const events = all.events.filter(
          (event) => contains(event, wanted) || runIds.has(event.data?.syncId),
        );
        const eventIds = new Set(events.map((event) => event.id));
        const deliveries = all.deliveries.filter(
          (delivery) => contains(delivery, wanted) || eventIds.has(delivery.eventId),
        );
        return { all, runs, events, deliveries };
      },
      render: ({ all, runs, events, deliveries }) => [
        h(
          'p',
          { class: 'muted' },
          `Searched the latest ${count(all.events.length, 'event')}, ${count(all.runs.length, 'sync run')} of ${count(all.accounts, 'account')} (your first ${LIMITS.customers} customers) and ${count(all.deliveries.length, 'delivery', 'deliveries')} to ${count(all.endpoints, 'endpoint')}.`,
        ),
        section(
          'Sync runs',
          h(
            'div',
            { id: 'lookup-runs' },
            runs.length === 0
              ? h('p', { class: 'state' }, 'No sync run mentions it.')
              : table(
                  'Sync runs',
                  ['Asked', 'Status', 'Problem', 'Upstream tracing id', 'Run', 'Account'],
                  runs.map((run) => [
                    when(run.queuedAt),
                    plain('run', run.status),
                    run.error ? `${run.error.message ?? 'No message'} (${run.error.code})` : 'None',
                    run.error?.upstream?.tracingId ? h('code', {}, run.error.upstream.tracingId) : '—',
                    h('code', {}, run.id),
                    h('a', { href: `#/accounts/${run.accountId}` }, 'Its account'),
                  ]),
                ),
          ),
        ),
        section(
          'Events',
          h(
            'div',
            { id: 'lookup-events' },
            events.length === 0
              ? h('p', { class: 'state' }, 'No event mentions it or those runs.')
              : eventsTable('Events', events),
          ),
        ),
        section(
          'Deliveries',
          h(
            'div',
            { id: 'lookup-deliveries' },
            deliveries.length === 0
              ? h('p', { class: 'state' }, 'No delivery mentions it or those events.')
              : table(
                  'Deliveries',
                  ['Event', 'Event id', 'Endpoint', 'Status', 'Attempts', 'Last attempt'],
                  deliveries.map((delivery) => [
                    eventTypeText(delivery.eventType),
                    h('code', {}, delivery.eventId),
                    h('a', { href: `#/event-endpoints/${delivery.endpoint.id}` }, delivery.endpoint.url),
                    plain('delivery', delivery.status),
                    String(delivery.attempts),
                    when(delivery.lastAttemptAt),
                  ]),
                ),
          ),
        ),
      ],
    });

  main.append(
    h('h1', {}, 'Look up a tracing id'),
    h(
      'p',
      {},
      'Paste a tracing id (from a sync run’s problem or an error the api answered), or any other id: the console shows the sync runs, events and deliveries that mention it, and what they lead to.',
    ),
    h(
      'form',
      {
        role: 'search',
        onsubmit: (event) => {
          event.preventDefault();
          void lookUp(needle.value.trim());
        },
      },
      h('label', { for: 'lookup-id' }, 'Tracing id or other id'),
      h('div', { class: 'row' }, needle, h('button', { type: 'submit' }, 'Look up')),
      h(
        'p',
        { class: 'muted' },
        'The api cannot search by tracing id: the console reads the latest items and searches them here, so older ones are not found.',
      ),
    ),
    results,
  );
}
