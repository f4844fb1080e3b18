// A merchant's customers: find one by reference, then their consents (each with its status history and
// upstream calls) and accounts, then an account's sync runs (each with its upstream calls) and its
// stored transactions, every list a page at a time.
import { bff } from './api.js';
import { loadedWhenOpened, loadInto, pagedInto } from './loading.js';
import { upstreamCalls } from './merchant-upstream-calls.js';
import { h, plain, section, table, toTheSecond, when } from './ui.js';

/** @typedef {import('./merchant-sdk.js').Account} Account */
/** @typedef {import('./merchant-sdk.js').Consent} Consent */

/**
 * A consent's statuses oldest first, loaded when its "Status history" is first opened.
 * @param {Consent} consent
 */
const statusHistory = (consent) =>
  loadedWhenOpened(
    'Status history',
    `of the consent at ${consent.institutionId}`,
    (part) =>
      pagedInto(part, {
        what: 'its statuses',
        load: (cursor) => bff.consents.history(consent.id, { limit: 20 }).page(cursor),
        empty: 'No status recorded yet.',
        caption: `Status history of the consent at ${consent.institutionId}`,
        headers: ['When', 'Status', 'Before'],
        row: (change) => [
          toTheSecond(change.changedAt),
          plain('consent', change.to),
          change.from ? plain('consent', change.from) : 'First recorded',
        ],
      }),
    `history-${consent.id}`,
  );

/**
 * Under a consent's row: its status history and its upstream calls (its creation's, its callback's, and
 * its runs' and payments').
 * @param {Consent} consent
 */
const consentBelow = (consent) => [
  statusHistory(consent),
  upstreamCalls('consent', consent.id, `of the consent at ${consent.institutionId}`),
];

const CUSTOMER_HEADERS = ['Reference', 'Since'];
/** @param {import('./merchant-sdk.js').User} user */
const customerRow = (user) => [
  h('a', { href: `#/customers/${user.id}` }, user.reference),
  when(user.createdAt),
];

/** @param {HTMLElement} main */
export function customersScreen(main) {
  const results = h('div', { id: 'customers-results' });
  const reference = h('input', { id: 'reference', name: 'reference', autocomplete: 'off' });
  /** @param {import('./merchant-sdk.js').User[]} users */
  const customersTable = (users) => table('Customers', CUSTOMER_HEADERS, users.map(customerRow));
  /** @param {string} ref empty: every customer, a page at a time */
  const search = (ref) =>
    ref
      ? loadInto(results, {
          what: `the customer "${ref}"`,
          load: async () => {
            try {
              return [await bff.users.findByReference(ref)];
            } catch (error) {
              // No customer with that reference is an answer, not a failure.
              if (/** @type {{ code?: string }} */ (error)?.code === 'NOT_FOUND') return [];
              throw error;
            }
          },
          empty: `No customer has the reference "${ref}".`,
          render: customersTable,
        })
      : pagedInto(results, {
          what: 'your customers',
          load: (cursor) => bff.users.list({ limit: 50 }).page(cursor),
          empty: 'You have no customers yet.',
          caption: 'Customers',
          headers: CUSTOMER_HEADERS,
          row: customerRow,
        });
  main.append(
    h('h1', {}, 'Customers'),
    h(
      'form',
      {
        role: 'search',
        onsubmit: (event) => {
          event.preventDefault();
          void search(reference.value.trim());
        },
      },
      h('label', { for: 'reference' }, 'Find a customer by your reference for them'),
      h('div', { class: 'row' }, reference, h('button', { type: 'submit' }, 'Find')),
      h('p', { class: 'muted' }, 'Leave it empty to list all your customers, 50 at a time.'),
    ),
    section('Found', results),
  );
  void search('');
}

/**
 * @param {HTMLElement} main
 * @param {string} userId
 */
export function customerScreen(main, userId) {
  const heading = h('h1', {}, 'Customer');
  const consents = h('div', { id: 'consents' });
  const accounts = h('div', { id: 'accounts' });
  main.append(
    h('p', {}, h('a', { href: '#/customers' }, '← All customers')),
    heading,
    section('Consents', consents),
    section('Accounts', accounts),
  );
  void bff.users
    .get(userId)
    .then((user) => (heading.textContent = `Customer ${user.reference}`))
    .catch(() => undefined);
  void pagedInto(consents, {
    what: 'their consents',
    load: (cursor) => bff.consents.list(userId, { limit: 50 }).page(cursor),
    empty: 'This customer has not connected a bank.',
    caption: 'Consents',
    headers: ['Bank', 'What for', 'Status', 'Authorised', 'Expires', 'Bank page'],
    row: (consent) => [
      consent.institutionId,
      consent.kind === 'ACCOUNT' ? 'Account data' : `${consent.kind} (as the api names it)`,
      plain('consent', consent.status),
      when(consent.authorizedAt),
      consent.expiresAt ? when(consent.expiresAt) : 'Does not expire',
      consent.reauthorisationUrl
        ? h('a', { href: consent.reauthorisationUrl, rel: 'noreferrer' }, 'Re-authorisation link')
        : consent.authorisationUrl
          ? h('a', { href: consent.authorisationUrl, rel: 'noreferrer' }, 'Authorisation link')
          : '—',
    ],
    below: consentBelow,
  });
  void pagedInto(accounts, {
    what: 'their accounts',
    load: (cursor) => bff.accounts.list(userId, { limit: 50 }).page(cursor),
    empty: 'No accounts yet: they appear once a bank is connected.',
    caption: 'Accounts',
    headers: ['Account', 'Sync', 'Last synced', 'Next sync', 'Reads left', 'Last problem', ''],
    row: (account) => [
      accountName(account),
      plain('accountSync', account.sync.status),
      when(account.sync.lastSyncedAt),
      heldByBank(account)
        ? `${when(account.sync.nextSyncAt)}, when the bank allows reads again (its daily allowance is spent)`
        : when(account.sync.nextSyncAt),
      readsLeft(account),
      account.sync.lastError ?? 'None',
      h('a', { href: `#/accounts/${account.id}` }, `Sync runs and transactions of ${accountName(account)}`),
    ],
  });
}

/**
 * The bank refused a read of the account for its daily allowance, and its next day has not come.
 * @param {Account} account
 */
const heldByBank = (account) =>
  account.sync.dailyLimitUntil !== null && Date.parse(account.sync.dailyLimitUntil) > Date.now();

/**
 * What is left today of the bank's daily allowance of reads without the customer (syncs, live reads).
 * @param {Account} account
 */
const readsLeft = ({ sync: { unattendedReads: reads } }) =>
  Date.parse(reads.resetsAt) <= Date.now()
    ? `${reads.perDay} of ${reads.perDay} left today`
    : `${reads.remaining} of ${reads.perDay} left today; all back ${when(reads.resetsAt)}`;

/** @param {Account} account */
const accountName = (account) =>
  account.nickname ?? account.description ?? `${account.type ?? 'Account'} ${account.upstreamAccountId}`;

/**
 * @param {HTMLElement} main
 * @param {string} accountId
 */
export function accountScreen(main, accountId) {
  const heading = h('h1', {}, 'Account');
  const runs = h('div', { id: 'sync-runs' });
  const transactions = h('div', { id: 'transactions' });
  main.append(heading, section('Sync runs', runs), section('Stored transactions', transactions));
  void bff.accounts
    .get(accountId)
    .then((data) => {
      heading.textContent = `Account ${accountName(data)}`;
      heading.before(h('p', {}, h('a', { href: `#/customers/${data.userId}` }, '← The customer')));
    })
    .catch(() => undefined);
  void pagedInto(runs, {
    what: 'its sync runs',
    load: (cursor) => bff.syncs.list(accountId, { limit: 20 }).page(cursor),
    empty: 'This account has not been synced yet.',
    caption: 'Sync runs',
    headers: ['Asked', 'Why', 'Status', 'Progress', 'Ended', 'Problem', 'Upstream tracing id', 'Run'],
    row: (run) => [
      when(run.queuedAt),
      plain('trigger', run.trigger),
      plain('run', run.status),
      `${run.progress.pages} ${run.progress.pages === 1 ? 'page' : 'pages'}: ${run.progress.fetched} fetched, ${run.progress.inserted} new, ${run.progress.updated} changed, ${run.progress.removed} removed`,
      when(run.finishedAt),
      run.error
        ? `${run.error.message ?? 'No message'} (${run.error.code})${
            run.status === 'running' ? `: attempt ${run.attempts} failed, another follows` : ''
          }`
        : 'None',
      run.error?.upstream?.tracingId ? h('code', {}, String(run.error.upstream.tracingId)) : '—',
      h('code', {}, run.id),
    ],
    below: (run) => upstreamCalls('run', run.id, `of the run ${run.id}`),
  });
  void pagedInto(transactions, {
    what: 'its transactions',
    load: (cursor) => bff.transactions(accountId, { limit: 25 }).page(cursor),
    empty: 'No stored transactions.',
    caption: 'Stored transactions',
    headers: ['Date', 'Description', 'Amount', 'Status'],
    row: (t) => [
      when(t.date),
      t.description ?? '—',
      h('span', { class: 'mono' }, `${t.amount} ${t.currency}`),
      t.status ? plain('transaction', t.status) : '—',
    ],
  });
}
