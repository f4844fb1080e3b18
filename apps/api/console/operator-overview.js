// What the operator watches: links to the queue board and the dashboard, consent counts and what expires
// without being renewed, merchants' failing event endpoints, and the upstream receiver with its
// categories. Read only.
import { operator } from './api.js';
import { loadInto } from './loading.js';
import { h, plain, section, table, when } from './ui.js';

const DAY = 24 * 60 * 60 * 1000;
/** Grafana where docker-compose.yml's observability profile publishes it, with the BFF dashboard as home. */
const GRAFANA = 'http://localhost:3001/';

/** What the screen's parts share: each part's container, and how far ahead the expiring part looks. */
function overviewView() {
  return {
    parts: {
      counts: h('div', { id: 'consent-counts' }),
      expiring: h('div', { id: 'consent-expiring' }),
      receiver: h('div', { id: 'upstream-receiver' }),
      categories: h('div', { id: 'upstream-categories' }),
      troubled: h('div', { id: 'troubled-endpoints' }),
    },
    days: h(
      'select',
      { id: 'expiring-days', name: 'expiring-days' },
      [7, 14, 30].map((d) => h('option', { value: d }, `${d} days`)),
    ),
  };
}

/** @typedef {ReturnType<typeof overviewView>} Screen */
/** @typedef {import('./operator-client').Schema<'MerchantConsentCountOutput'>} ConsentCount */

/** @param {ConsentCount[]} rows */
const byMerchant = (rows) =>
  table(
    'By merchant',
    ['Merchant', 'Status', 'Consents'],
    rows.map((row) => [row.merchantName, plain('consent', row.status), String(row.count)]),
  );

/** @param {Screen} screen */
function loadCounts(screen) {
  return loadInto(screen.parts.counts, {
    what: 'the consent counts',
    load: async () => (await operator.get('/admin/consents')).data,
    render: (answer) =>
      [
        Object.keys(answer.byStatus).length === 0
          ? h('p', { class: 'state' }, 'No consent yet.')
          : h('h3', {}, 'By status'),
        Object.keys(answer.byStatus).length === 0
          ? ''
          : table(
              'By status',
              ['Status', 'Consents'],
              Object.entries(answer.byStatus).map(([status, n]) => [plain('consent', status), String(n)]),
            ),
        answer.byMerchant.length ? [h('h3', {}, 'By merchant'), byMerchant(answer.byMerchant)] : '',
      ].flat(),
  });
}

/** @param {Screen} screen */
function showExpiring(screen) {
  const { days } = screen;
  const within = `${days.value} days`;
  return loadInto(screen.parts.expiring, {
    what: 'the consents expiring unrenewed',
    load: async () => {
      const before = new Date(Date.now() + Number(days.value) * DAY).toISOString();
      const query = { status: 'AUTHORIZED', expiringBefore: before };
      const answer = (await operator.get('/admin/consents', { query })).data;
      return answer.byMerchant;
    },
    empty: `No authorised consent expires within ${within}.`,
    render: (rows) => {
      const total = rows.reduce((sum, row) => sum + row.count, 0);
      return [
        h(
          'p',
          {},
          `${total} authorised ${total === 1 ? 'consent expires' : 'consents expire'} within ${within} unless the customer renews it.`,
        ),
        byMerchant(rows),
      ];
    },
  });
}

/** @param {Screen} screen */
function loadReceiver(screen) {
  return loadInto(screen.parts.receiver, {
    what: 'the upstream receiver',
    load: async () => (await operator.get('/admin/upstream/webhooks')).data,
    empty: 'No webhook is registered with the upstream: its events do not reach the api.',
    render: (registrations) => {
      const current = registrations.filter((r) => !r.retiredAt);
      return [
        h(
          'p',
          {},
          current.length
            ? `${current.length} current ${current.length === 1 ? 'registration' : 'registrations'}: the upstream sends its events to the addresses below.`
            : 'No current registration: only retired ones, whose secrets verify for 24 hours after they were replaced.',
        ),
        registrationsTable(registrations),
      ];
    },
  });
}

/** @param {import('./operator-client').Schema<'UpstreamWebhookOutput'>[]} registrations */
function registrationsTable(registrations) {
  return table(
    'Registrations with the upstream',
    ['For', 'Our address', 'Categories', 'Upstream status', 'Since', 'Retired'],
    registrations.map((r) => [
      r.merchantId ? `Merchant ${r.merchantName}` : 'The root application',
      h('code', {}, r.callbackUrl),
      r.categories.length ? r.categories.join(', ') : 'Every category',
      r.status ?? 'Not known',
      when(r.createdAt),
      r.retiredAt ? when(r.retiredAt) : 'Current',
    ]),
  );
}

/** @param {Screen} screen */
function loadCategories(screen) {
  return loadInto(screen.parts.categories, {
    what: "the upstream's categories",
    load: async () => (await operator.get('/admin/upstream/webhook-categories')).data,
    empty: 'The upstream lists no category.',
    render: (list) =>
      table(
        'Upstream event categories',
        ['Category', 'What the upstream says of it'],
        list.map((c) => [h('code', {}, c.name), c.description ?? '—']),
      ),
  });
}

/** @param {Screen} screen */
function loadTroubled(screen) {
  return loadInto(screen.parts.troubled, {
    what: "the merchants' failing endpoints",
    load: async () => (await operator.get('/admin/event-endpoints')).data,
    empty: "No merchant's event endpoint is failing or turned off.",
    render: (endpoints) =>
      table(
        'Failing event endpoints',
        ['Merchant', 'Address', 'Failing since', 'Turned off', 'Why'],
        endpoints.map((e) => [
          e.merchantName,
          h('code', {}, e.url),
          when(e.failingSince),
          when(e.disabledAt),
          e.disabledReason ?? '—',
        ]),
      ),
  });
}

/**
 * A link that opens in a new tab, then what is behind it.
 * @param {string} href
 * @param {string} text
 * @param {...import('./ui.js').Children} about
 */
const elsewhere = (href, text, ...about) =>
  h('li', {}, h('a', { href, target: '_blank', rel: 'noreferrer' }, text), ...about);

function elsewhereSection() {
  return section(
    'Elsewhere',
    h(
      'ul',
      {},
      elsewhere(
        '/admin/queues',
        'The queue board (opens in a new tab)',
        ': jobs waiting, running and failed; pausing and resuming a queue. Your console session opens it; without one it asks for user operator and the operator token as the password.',
      ),
      elsewhere(
        GRAFANA,
        'The metrics dashboard (Grafana, opens in a new tab)',
        ': requests, syncs, deliveries and queues over time. The link is where ',
        h('code', {}, 'docker compose --profile observability up'),
        ' puts Grafana; elsewhere, import docs/observability/grafana-dashboard.json into yours.',
      ),
      elsewhere(
        '/metrics',
        'The raw metrics (opens in a new tab)',
        ': what the dashboard is drawn from, as Prometheus reads it from this api.',
      ),
    ),
  );
}

/** @param {Screen} screen */
function expiringSection(screen) {
  return section(
    'Expiring unrenewed',
    h(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          void showExpiring(screen);
        },
      },
      h('label', { for: 'expiring-days' }, 'Authorised consents expiring within'),
      h('div', { class: 'row' }, screen.days, h('button', { type: 'submit' }, 'Count')),
    ),
    screen.parts.expiring,
  );
}

/** @param {HTMLElement} main */
export function overviewScreen(main) {
  const screen = overviewView();
  const { parts } = screen;
  void loadCounts(screen);
  void loadReceiver(screen);
  void loadCategories(screen);
  void loadTroubled(screen);
  main.append(
    h('h1', {}, 'Overview'),
    elsewhereSection(),
    section('Consents', parts.counts),
    expiringSection(screen),
    section(
      "Merchants' failing event endpoints",
      h(
        'p',
        { class: 'muted' },
        'Longest failing first. The merchant turns one on again from its console once it is fixed.',
      ),
      parts.troubled,
    ),
    section('The upstream receiver', parts.receiver),
    section('Upstream event categories', parts.categories),
  );
  void showExpiring(screen);
}
