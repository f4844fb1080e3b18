// The operator's merchants: the list, disabling and enabling one.
import { get, post } from './api.js';
import { errorText, h, loadInto, table, when } from './ui.js';

export function merchantsScreen(main) {
  const list = h('div', { id: 'merchants-list' });
  const status = h('p', { role: 'status' });

  const refresh = () =>
    loadInto(list, {
      what: 'the merchants',
      load: async () => (await get('/admin/merchants?limit=100')).data,
      empty: 'No merchant is on-boarded yet.',
      render: (merchants) =>
        table(
          'Merchants',
          ['Name', 'Since', 'Active keys', 'State', ''],
          merchants.map((merchant) => [
            merchant.name,
            when(merchant.createdAt),
            String(merchant.apiKeys.filter((key) => !key.revokedAt).length),
            merchant.disabledAt ? `Disabled since ${when(merchant.disabledAt)}` : 'Enabled',
            h(
              'button',
              {
                type: 'button',
                class: merchant.disabledAt ? 'secondary' : 'danger',
                'aria-label': `${merchant.disabledAt ? 'Enable' : 'Disable'} ${merchant.name}`,
                onclick: () => toggle(merchant),
              },
              merchant.disabledAt ? 'Enable' : 'Disable',
            ),
          ]),
        ),
    });

  async function toggle(merchant) {
    const action = merchant.disabledAt ? 'enable' : 'disable';
    try {
      await post(`/admin/merchants/${merchant.id}/${action}`);
      status.className = 'good';
      status.textContent = `${merchant.name} is ${action}d.`;
    } catch (error) {
      status.className = 'error';
      status.textContent = `Could not ${action} ${merchant.name}. ${errorText(error)}`;
    }
    await refresh();
  }

  main.append(
    h('h1', {}, 'Merchants'),
    h(
      'p',
      {},
      "Disabling a merchant refuses its keys and its customers' sessions at once and pauses its syncs and deliveries; enabling it resumes them.",
    ),
    status,
    h('section', {}, h('h2', {}, 'All merchants'), list),
  );
  void refresh();
}
