// The operator's merchants: the list, on-boarding one (its first API key shown once), disabling and
// enabling one. One merchant's own screen is in operator-merchant.js.
import { operator } from './api.js';
import { showKeyOnce } from './api-keys.js';
import { OPERATOR_KEY_ADVICE, originsField, originsFrom } from './operator-merchant.js';
import { errorText, h, pagedInto, submitting, tableRow, when } from './ui.js';

export function merchantsScreen(main) {
  const list = h('div', { id: 'merchants-list' });
  const status = h('p', { role: 'status' });
  const issued = h('section', { id: 'new-key', class: 'new-key', hidden: true, 'aria-live': 'polite' });
  const name = h('input', {
    id: 'new-merchant-name',
    name: 'new-merchant-name',
    required: true,
    maxlength: 255,
    autocomplete: 'off',
  });

  /** A merchant's cells; its button redraws the row in place, so a later page stays where it is. */
  const cells = (merchant) => [
    h('a', { href: `#/merchants/${merchant.id}` }, merchant.name),
    when(merchant.createdAt),
    String(merchant.apiKeys.filter((key) => !key.revokedAt).length),
    merchant.disabledAt ? `Disabled since ${when(merchant.disabledAt)}` : 'Enabled',
    h(
      'button',
      {
        type: 'button',
        class: merchant.disabledAt ? 'secondary' : 'danger',
        'aria-label': `${merchant.disabledAt ? 'Enable' : 'Disable'} ${merchant.name}`,
        onclick: (event) => void toggle(merchant, event.currentTarget.closest('tr')),
      },
      merchant.disabledAt ? 'Enable' : 'Disable',
    ),
  ];

  const refresh = () =>
    pagedInto(list, {
      what: 'the merchants',
      load: (cursor) => operator.page('/admin/merchants', { query: { limit: 50 } }, cursor),
      empty: 'No merchant is on-boarded yet.',
      caption: 'Merchants',
      headers: ['Name', 'Since', 'Active keys', 'State', ''],
      row: cells,
    });

  async function toggle(merchant, row) {
    const action = merchant.disabledAt ? 'enable' : 'disable';
    const path = merchant.disabledAt ? '/admin/merchants/{id}/enable' : '/admin/merchants/{id}/disable';
    try {
      const { data } = await operator.post(path, { path: { id: merchant.id } });
      status.className = 'good';
      status.textContent = `${merchant.name} is ${action}d.`;
      const redrawn = tableRow(cells(data));
      row.replaceWith(redrawn);
      // The button the operator pressed is gone: its successor takes the focus.
      redrawn.querySelector('button').focus();
    } catch (error) {
      status.className = 'error';
      status.textContent = `Could not ${action} ${merchant.name}. ${errorText(error)}`;
    }
  }

  const create = h(
    'form',
    {
      onsubmit: submitting(async () => {
        const origins = originsFrom(create.querySelector('textarea').value);
        try {
          const { data } = await operator.post('/admin/merchants', {
            body: { name: name.value.trim(), ...(origins.length ? { frontendOrigins: origins } : {}) },
          });
          create.reset();
          status.className = 'good';
          status.textContent = `${data.merchant.name} is on-boarded.`;
          showKeyOnce(issued, {
            title: `The first API key of ${data.merchant.name}`,
            key: data.apiKey.key,
            advice: OPERATOR_KEY_ADVICE,
            back: name,
          });
        } catch (error) {
          status.className = 'error';
          status.textContent = `Could not on-board the merchant. ${errorText(error)}`;
        }
        await refresh();
      }),
    },
    h('label', { for: 'new-merchant-name' }, 'Name'),
    name,
    originsField('new-merchant-origins'),
    h('p', {}, h('button', { type: 'submit' }, 'On-board')),
  );

  main.append(
    h('h1', {}, 'Merchants'),
    h(
      'p',
      {},
      "Disabling a merchant refuses its keys and its customers' sessions at once and pauses its syncs and deliveries; enabling it resumes them. A merchant's name opens its name, frontend origins, upstream sub-application and API keys. Oldest first, 50 at a time.",
    ),
    status,
    h('section', {}, h('h2', {}, 'On-board a merchant'), create),
    issued,
    h('section', {}, h('h2', {}, 'All merchants'), list),
  );
  void refresh();
}
