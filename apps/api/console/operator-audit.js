// The operator's audit log: every administrative action, newest first, for one merchant or all.
import { all, page } from './api.js';
import { h, pagedInto, when } from './ui.js';

const ACTIONS = {
  'merchant.create': 'Merchant on-boarded',
  'merchant.update': 'Merchant changed',
  'merchant.disable': 'Merchant disabled',
  'merchant.enable': 'Merchant enabled',
  'api-key.issue': 'API key issued',
  'api-key.revoke': 'API key revoked',
  'event-endpoint.create': 'Event endpoint created',
  'event-endpoint.update': 'Event endpoint moved or retyped',
  'event-endpoint.delete': 'Event endpoint deleted',
  'event-endpoint.rotate-secret': "Event endpoint's secret rotated",
  'event-endpoint.enable': 'Event endpoint enabled again',
  'event-delivery.retry': 'Event delivery tried again',
  'payment.settle': 'Parked payment settled',
  'institutions.refresh': 'List of banks refreshed',
  'upstream-webhook.register': 'Upstream webhook registered',
  'upstream-webhook.rotate-secret': "Upstream webhook's secret rotated",
  'upstream-webhook.migrate': 'Upstream webhook moved',
};

/** The plain words, then the API's own name of the action, shown as such. */
const action = (name) => h('span', {}, `${ACTIONS[name] ?? name} `, h('code', { class: 'muted' }, name));

export function auditScreen(main) {
  const list = h('div', { id: 'audit-list' });
  const merchant = h(
    'select',
    { id: 'audit-merchant', name: 'audit-merchant' },
    h('option', { value: '' }, 'Every merchant'),
  );
  const names = new Map();

  const refresh = () => {
    const query = merchant.value ? `&merchantId=${encodeURIComponent(merchant.value)}` : '';
    return pagedInto(list, {
      what: 'the audit log',
      load: (cursor) => page(`/admin/audit?limit=50${query}`, cursor),
      empty: merchant.value ? 'Nothing has been done about this merchant yet.' : 'Nothing has been done yet.',
      caption: 'Audit log',
      headers: ['When', 'Who', 'What', 'Merchant', 'On', 'Fields changed', 'From', 'Tracing id'],
      row: (entry) => [
        when(entry.occurredAt),
        entry.actor.kind === 'operator' ? 'The operator' : `API key ${entry.actor.apiKeyId ?? ''}`,
        action(entry.action),
        entry.merchantId ? (names.get(entry.merchantId) ?? entry.merchantId) : '—',
        `${entry.resource.type}${entry.resource.id ? ` ${entry.resource.id}` : ''}`,
        entry.fields.length ? entry.fields.join(', ') : '—',
        entry.sourceIp ?? '—',
        h('code', {}, entry.tracingId),
      ],
    });
  };

  main.append(
    h('h1', {}, 'Audit log'),
    h(
      'p',
      {},
      "Every administrative action, yours and the merchants' on their own integration, newest first, 50 at a time. A change names the fields it set, never their values.",
    ),
    h(
      'form',
      {
        onsubmit: (event) => {
          event.preventDefault();
          void refresh();
        },
      },
      h('label', { for: 'audit-merchant' }, 'Merchant'),
      h('div', { class: 'row' }, merchant, h('button', { type: 'submit' }, 'Show')),
    ),
    h('section', {}, h('h2', {}, 'Entries'), list),
  );
  // The merchants' names, for the filter and the table; the log itself names merchants by id.
  void all('/admin/merchants?limit=100')
    .then((merchants) => {
      for (const m of merchants) {
        names.set(m.id, m.name);
        merchant.append(h('option', { value: m.id }, m.name));
      }
    })
    .catch(() => undefined)
    .finally(() => void refresh());
}
