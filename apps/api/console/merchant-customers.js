// A merchant's customers: find one by reference, then their consents (each with its status history)
// and accounts, then an account's sync runs and its stored transactions, every list a page at a time.
import { bff } from './api.js';
import { h, loadInto, plain, section, table, when } from './ui.js';

/**
 * A list of the SDK (`PagedList`) into `container` a page at a time: `render` draws a page's items, a
 * "Next page of …" button replaces them with the next page, and the last page says so.
 */
function pagedInto(container, { what, list, empty, render }) {
  const page = (cursor) =>
    loadInto(container, {
      what,
      load: () => list.page(cursor),
      render: (answer) =>
        answer.items.length === 0
          ? h('p', { class: 'state' }, cursor ? 'There are no more.' : empty)
          : [
              render(answer.items),
              answer.nextCursor
                ? h(
                    'button',
                    { type: 'button', onclick: () => void page(answer.nextCursor) },
                    `Next page of ${what}`,
                  )
                : h('p', { class: 'muted' }, 'That is all of them.'),
            ],
    });
  return page();
}

/** To the second: a consent's statuses often change within the same minute. */
const toTheSecond = (iso) =>
  new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });

/** A consent's statuses oldest first, loaded when its "Status history" is first opened. */
function statusHistory(consent) {
  const changes = h('div', { id: `history-${consent.id}` });
  let loaded = false;
  return h(
    'details',
    {
      ontoggle: (event) => {
        if (!event.currentTarget.open || loaded) return;
        loaded = true;
        void pagedInto(changes, {
          what: 'its statuses',
          list: bff.consents.history(consent.id, { limit: 20 }),
          empty: 'No status recorded yet.',
          render: (items) =>
            table(
              `Status history of the consent at ${consent.institutionId}`,
              ['When', 'Status', 'Before'],
              items.map((change) => [
                toTheSecond(change.changedAt),
                plain('consent', change.to),
                change.from ? plain('consent', change.from) : 'First recorded',
              ]),
            ),
        });
      },
    },
    h(
      'summary',
      {},
      'Status history',
      h('span', { class: 'visually-hidden' }, ` of the consent at ${consent.institutionId}`),
    ),
    changes,
  );
}

export function customersScreen(main) {
  const results = h('div', { id: 'customers-results' });
  const reference = h('input', { id: 'reference', name: 'reference', autocomplete: 'off' });
  const customersTable = (users) =>
    table(
      'Customers',
      ['Reference', 'Since'],
      users.map((user) => [h('a', { href: `#/customers/${user.id}` }, user.reference), when(user.createdAt)]),
    );
  const search = (ref) =>
    ref
      ? loadInto(results, {
          what: `the customer "${ref}"`,
          load: async () => {
            try {
              return [await bff.users.findByReference(ref)];
            } catch (error) {
              // No customer with that reference is an answer, not a failure.
              if (error?.code === 'NOT_FOUND') return [];
              throw error;
            }
          },
          empty: `No customer has the reference "${ref}".`,
          render: customersTable,
        })
      : pagedInto(results, {
          what: 'your customers',
          list: bff.users.list({ limit: 50 }),
          empty: 'You have no customers yet.',
          render: customersTable,
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
    list: bff.consents.list(userId, { limit: 50 }),
    empty: 'This customer has not connected a bank.',
    render: (list) =>
      table(
        'Consents',
        ['Bank', 'What for', 'Status', 'Authorised', 'Expires', 'Bank page', 'History'],
        list.map((consent) => [
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
          statusHistory(consent),
        ]),
      ),
  });
  void pagedInto(accounts, {
    what: 'their accounts',
    list: bff.accounts.list(userId, { limit: 50 }),
    empty: 'No accounts yet: they appear once a bank is connected.',
    render: (list) =>
      table(
        'Accounts',
        ['Account', 'Sync', 'Last synced', 'Next sync', 'Last problem', ''],
        list.map((account) => [
          accountName(account),
          plain('accountSync', account.sync.status),
          when(account.sync.lastSyncedAt),
          when(account.sync.nextSyncAt),
          account.sync.lastError ?? 'None',
          h(
            'a',
            { href: `#/accounts/${account.id}` },
            `Sync runs and transactions of ${accountName(account)}`,
          ),
        ]),
      ),
  });
}

const accountName = (account) =>
  account.nickname ?? account.description ?? `${account.type ?? 'Account'} ${account.upstreamAccountId}`;

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
    list: bff.syncs.list(accountId, { limit: 20 }),
    empty: 'This account has not been synced yet.',
    render: (list) =>
      table(
        'Sync runs',
        ['Asked', 'Why', 'Status', 'Progress', 'Ended', 'Problem', 'Upstream tracing id', 'Run'],
        list.map((run) => [
          when(run.queuedAt),
          plain('trigger', run.trigger),
          plain('run', run.status),
          `${run.progress.pages} ${run.progress.pages === 1 ? 'page' : 'pages'}: ${run.progress.fetched} fetched, ${run.progress.inserted} new, ${run.progress.updated} changed, ${run.progress.removed} removed`,
          when(run.finishedAt),
          run.error ? `${run.error.message ?? 'No message'} (${run.error.code})` : 'None',
          run.error?.upstream?.tracingId ? h('code', {}, run.error.upstream.tracingId) : '—',
          h('code', {}, run.id),
        ]),
      ),
  });
  void pagedInto(transactions, {
    what: 'its transactions',
    list: bff.transactions(accountId, { limit: 25 }),
    empty: 'No stored transactions.',
    render: (items) =>
      table(
        'Stored transactions',
        ['Date', 'Description', 'Amount', 'Status'],
        items.map((t) => [
          when(t.date),
          t.description ?? '—',
          h('span', { class: 'mono' }, `${t.amount} ${t.currency}`),
          t.status ? plain('transaction', t.status) : '—',
        ]),
      ),
  });
}
