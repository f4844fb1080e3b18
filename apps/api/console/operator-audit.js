// The operator's audit log: every administrative action, newest first, for one merchant or all.
import { operator } from './api.js';
import { pagedInto } from './loading.js';
import { operatorScope } from './operator-scope.js';
import { h, when } from './ui.js';

/** @typedef {import('./operator-client').Schema<'AuditEntryOutput'>['action']} Action */

/** @type {Record<Action, string>} */
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
  'event-endpoint.recover': 'Failed event deliveries sent again',
  'payment.settle': 'Parked payment settled',
  'institutions.refresh': 'List of banks refreshed',
  'institution.allowance-set': "A bank's daily allowance of reads set",
  'upstream-webhook.register': 'Upstream webhook registered',
  'upstream-webhook.rotate-secret': "Upstream webhook's secret rotated",
  'upstream-webhook.migrate': 'Upstream webhook moved',
};

/**
 * The plain words, then the API's own name of the action, shown as such.
 * @param {Action} name
 */
const action = (name) => h('span', {}, `${ACTIONS[name] ?? name} `, h('code', { class: 'muted' }, name));

/**
 * Every merchant's entries, or one merchant's (`#/audit/<id>`, linked from its screen). The api names
 * each entry's merchant: the screen reads no list of merchants to show names.
 * @param {HTMLElement} main
 * @param {string} [merchantId]
 */
export function auditScreen(main, merchantId) {
  const list = h('div', { id: 'audit-list' });
  const query = { limit: 50, ...(merchantId ? { merchantId } : {}) };
  main.append(
    h('h1', {}, 'Audit log'),
    h(
      'p',
      {},
      "Every administrative action, yours and the merchants' on their own integration, newest first, 50 at a time. A change names the fields it set, never their values. A merchant's own screen links to its entries alone.",
    ),
    ...operatorScope('#/audit', merchantId, "Every merchant's entries"),
    h('section', {}, h('h2', {}, 'Entries'), list),
  );
  void pagedInto(list, {
    what: 'the audit log',
    load: (cursor) => operator.page('/admin/audit', { query }, cursor),
    empty: merchantId ? 'Nothing has been done about this merchant yet.' : 'Nothing has been done yet.',
    caption: 'Audit log',
    headers: ['When', 'Who', 'What', 'Merchant', 'On', 'Fields changed', 'From', 'Tracing id'],
    row: (entry) => [
      when(entry.occurredAt),
      entry.actor.kind === 'operator' ? 'The operator' : `API key ${entry.actor.apiKeyId ?? ''}`,
      action(entry.action),
      entry.merchantId ? (entry.merchantName ?? entry.merchantId) : '—',
      `${entry.resource.type}${entry.resource.id ? ` ${entry.resource.id}` : ''}`,
      entry.fields.length ? entry.fields.join(', ') : '—',
      entry.sourceIp ?? '—',
      h('code', {}, entry.tracingId),
    ],
  });
}
