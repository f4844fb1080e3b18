// What the operator watches: links to the queue board and the dashboard, consent counts and what expires
// without being renewed, merchants' failing event endpoints, and the upstream receiver with its
// categories. Read only.
import { get } from './api.js';
import { h, loadInto, plain, table, when } from './ui.js';

const section = (title, ...children) => h('section', {}, h('h2', {}, title), ...children);
const DAY = 24 * 60 * 60 * 1000;

export function overviewScreen(main) {
  const counts = h('div', { id: 'consent-counts' });
  const expiring = h('div', { id: 'consent-expiring' });
  const receiver = h('div', { id: 'upstream-receiver' });
  const categories = h('div', { id: 'upstream-categories' });
  const troubled = h('div', { id: 'troubled-endpoints' });
  const days = h(
    'select',
    { id: 'expiring-days', name: 'expiring-days' },
    [7, 14, 30].map((d) => h('option', { value: d }, `${d} days`)),
  );

  const byMerchant = (rows) =>
    table(
      'By merchant',
      ['Merchant', 'Status', 'Consents'],
      rows.map((row) => [row.merchantName, plain('consent', row.status), String(row.count)]),
    );

  void loadInto(counts, {
    what: 'the consent counts',
    load: async () => (await get('/admin/consents')).data,
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

  const showExpiring = () =>
    loadInto(expiring, {
      what: 'the consents expiring unrenewed',
      load: async () => {
        const before = new Date(Date.now() + Number(days.value) * DAY).toISOString();
        const answer = (
          await get(`/admin/consents?status=AUTHORIZED&expiringBefore=${encodeURIComponent(before)}`)
        ).data;
        return answer.byMerchant;
      },
      empty: 'No authorised consent expires in that time.',
      render: byMerchant,
    });

  void loadInto(receiver, {
    what: 'the upstream receiver',
    load: async () => (await get('/admin/upstream/webhooks')).data,
    empty: 'No webhook is registered with the upstream: its events do not reach the api.',
    render: (registrations) =>
      table(
        'Registrations with the upstream',
        ['For', 'Our address', 'Categories', 'Upstream status', 'Since', 'Retired'],
        registrations.map((r) => [
          r.merchantId ? `Merchant ${r.merchantId}` : 'The root application',
          h('code', {}, r.callbackUrl),
          r.categories.length ? r.categories.join(', ') : 'Every category',
          r.status ?? 'Not known',
          when(r.createdAt),
          r.retiredAt ? when(r.retiredAt) : 'Current',
        ]),
      ),
  });
  void loadInto(categories, {
    what: "the upstream's categories",
    load: async () => (await get('/admin/upstream/webhook-categories')).data,
    empty: 'The upstream lists no category.',
    render: (list) =>
      table(
        'Upstream event categories',
        ['Category', 'What the upstream says of it'],
        list.map((c) => [h('code', {}, c.name), c.description ?? '—']),
      ),
  });

  // The merchants' names first: the list names merchants by id.
  void get('/admin/merchants?limit=100')
    .then(({ data }) => new Map(data.map((m) => [m.id, m.name])))
    .catch(() => new Map())
    .then((names) =>
      loadInto(troubled, {
        what: "the merchants' failing endpoints",
        load: async () => (await get('/admin/event-endpoints')).data,
        empty: "No merchant's event endpoint is failing or turned off.",
        render: (endpoints) =>
          table(
            'Failing event endpoints',
            ['Merchant', 'Address', 'Failing since', 'Turned off', 'Why'],
            endpoints.map((e) => [
              names.get(e.merchantId) ?? e.merchantId,
              h('code', {}, e.url),
              when(e.failingSince),
              when(e.disabledAt),
              e.disabledReason ?? '—',
            ]),
          ),
      }),
    );

  main.append(
    h('h1', {}, 'Overview'),
    section(
      'Elsewhere',
      h(
        'ul',
        {},
        h(
          'li',
          {},
          h('a', { href: '/admin/queues', target: '_blank', rel: 'noreferrer' }, 'The queue board'),
          ': jobs waiting, running and failed; pausing and resuming a queue. It asks its own sign-in: user operator, the operator token as the password.',
        ),
        h(
          'li',
          {},
          'The metrics dashboard: docs/observability/grafana-dashboard.json, in Grafana wherever yours runs (with ',
          h('code', {}, 'docker compose --profile observability up'),
          ', http://localhost:3001).',
        ),
      ),
    ),
    section('Consents', counts),
    section(
      'Expiring unrenewed',
      h(
        'form',
        {
          onsubmit: (event) => {
            event.preventDefault();
            void showExpiring();
          },
        },
        h('label', { for: 'expiring-days' }, 'Authorised consents expiring within'),
        h('div', { class: 'row' }, days, h('button', { type: 'submit' }, 'Count')),
      ),
      expiring,
    ),
    section(
      "Merchants' failing event endpoints",
      h(
        'p',
        { class: 'muted' },
        'Longest failing first. The merchant turns one on again from its console once it is fixed.',
      ),
      troubled,
    ),
    section('The upstream receiver', receiver),
    section('Upstream event categories', categories),
  );
  void showExpiring();
}
