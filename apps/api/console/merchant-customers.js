// A merchant's customers: find one by reference, then their consents and accounts, then an account's
// sync runs and a page of its stored transactions.
import { bff } from './api.js';
import { h, loadInto, plain, table, when } from './ui.js';

const section = (title, ...children) => h('section', {}, h('h2', {}, title), ...children);

export function customersScreen(main) {
  const results = h('div', { id: 'customers-results' });
  const reference = h('input', { id: 'reference', name: 'reference', autocomplete: 'off' });
  const search = (ref) =>
    loadInto(results, {
      what: ref ? `the customer "${ref}"` : 'your customers',
      load: async () => {
        if (!ref) return (await bff.users.list({ limit: 50 }).page()).items;
        try {
          return [await bff.users.findByReference(ref)];
        } catch (error) {
          // No customer with that reference is an answer, not a failure.
          if (error?.code === 'NOT_FOUND') return [];
          throw error;
        }
      },
      empty: ref ? `No customer has the reference "${ref}".` : 'You have no customers yet.',
      render: (users) =>
        table(
          'Customers',
          ['Reference', 'Since'],
          users.map((user) => [
            h('a', { href: `#/customers/${user.id}` }, user.reference),
            when(user.createdAt),
          ]),
        ),
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
      h('p', { class: 'muted' }, 'Leave it empty to list your first 50 customers.'),
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
  void loadInto(consents, {
    what: 'their consents',
    load: async () => (await bff.consents.list(userId, { limit: 50 }).page()).items,
    empty: 'This customer has not connected a bank.',
    render: (list) =>
      table(
        'Consents',
        ['Bank', 'What for', 'Status', 'Authorised', 'Expires', 'Bank page'],
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
        ]),
      ),
  });
  void loadInto(accounts, {
    what: 'their accounts',
    load: async () => (await bff.accounts.list(userId, { limit: 50 }).page()).items,
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
  void loadInto(runs, {
    what: 'its sync runs',
    load: async () => (await bff.syncs.list(accountId, { limit: 20 }).page()).items,
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
  const list = bff.transactions(accountId, { limit: 25 });
  const page = (cursor) =>
    loadInto(transactions, {
      what: 'its transactions',
      load: () => list.page(cursor),
      render: (answer) =>
        answer.items.length === 0
          ? h('p', { class: 'state' }, 'No stored transactions.')
          : [
              table(
                'Stored transactions',
                ['Date', 'Description', 'Amount', 'Status'],
                answer.items.map((t) => [
                  when(t.date),
                  t.description ?? '—',
                  h('span', { class: 'mono' }, `${t.amount} ${t.currency}`),
                  t.status ? plain('transaction', t.status) : '—',
                ]),
              ),
              answer.nextCursor
                ? h('button', { type: 'button', onclick: () => void page(answer.nextCursor) }, 'Next page')
                : h('p', { class: 'muted' }, 'That is all of them.'),
            ],
    });
  void page();
}
