// A merchant's frontend origins: the web pages allowed to call the api with a customer's session.
import { bff } from './api.js';
import { errorText, h, loadInto, submitting } from './ui.js';

export function originsScreen(main) {
  const list = h('div', { id: 'origins-list' });
  const status = h('p', { role: 'status' });
  const origin = h('input', {
    id: 'new-origin',
    name: 'new-origin',
    type: 'url',
    required: true,
    placeholder: 'https://shop.example',
    autocomplete: 'off',
    'aria-describedby': 'new-origin-help',
  });
  let current = [];

  const refresh = () =>
    loadInto(list, {
      what: 'your frontend origins',
      load: async () => (current = (await bff.merchant.get()).frontendOrigins),
      empty: 'No origin yet: no web page may call the api with a customer session.',
      render: (origins) =>
        h(
          'ul',
          {},
          origins.map((o) =>
            h(
              'li',
              {},
              h('code', {}, o),
              ' ',
              h(
                'button',
                {
                  type: 'button',
                  class: 'danger',
                  'aria-label': `Remove ${o}`,
                  onclick: () =>
                    save(
                      current.filter((c) => c !== o),
                      `${o} is removed.`,
                    ),
                },
                'Remove',
              ),
            ),
          ),
        ),
    });

  /** The api takes the whole list: what is sent replaces what was there. */
  async function save(origins, done) {
    try {
      await bff.merchant.update({ frontendOrigins: origins });
      status.className = 'good';
      status.textContent = done;
      return true;
    } catch (error) {
      status.className = 'error';
      status.textContent = `Could not save the origins. ${errorText(error)}`;
      return false;
    } finally {
      await refresh();
    }
  }

  main.append(
    h('h1', {}, 'Frontend origins'),
    h(
      'p',
      {},
      'The web pages (scheme, host and port) allowed to call the api with a customer session, such as the page that shows the bank picker. A change applies at once.',
    ),
    status,
    h(
      'section',
      {},
      h('h2', {}, 'Add an origin'),
      h(
        'form',
        {
          onsubmit: submitting(async () => {
            const value = origin.value.trim();
            if (await save([...current, value], `${value} is added.`)) origin.value = '';
          }),
        },
        h('label', { for: 'new-origin' }, 'Origin'),
        h('p', { id: 'new-origin-help', class: 'muted' }, 'Like https://shop.example, without a path.'),
        h('div', { class: 'row' }, origin, h('button', { type: 'submit' }, 'Add')),
      ),
    ),
    h('section', {}, h('h2', {}, 'Allowed origins'), list),
  );
  void refresh();
}
