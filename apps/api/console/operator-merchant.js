// One merchant, from the operator's side: its name and frontend origins, and its API keys (the list,
// issuing one shown once, revoking one). Also what the merchants' list borrows for on-boarding.
import { del, get, patch, post } from './api.js';
import { keysTable, showKeyOnce } from './api-keys.js';
import { errorText, h, loadInto, when } from './ui.js';

/** What the operator is told of a merchant's new key. */
export const OPERATOR_KEY_ADVICE =
  'Copy it now and hand it to the merchant: it is shown only this once. It belongs on their servers, never in a web page.';

/** One origin a line, as the api takes them (`frontendOrigins`): blank lines and spaces dropped. */
export function originsFrom(text) {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** A field for `frontendOrigins`, one origin a line (the api takes at most 20). */
export function originsField(id, origins = []) {
  return [
    h('label', { for: id }, 'Frontend origins (optional, one a line)'),
    h(
      'p',
      { id: `${id}-help`, class: 'muted' },
      'Like https://shop.example, without a path; at most 20. The web pages allowed to call the api with a customer session.',
    ),
    h(
      'textarea',
      { id, name: id, rows: 3, autocomplete: 'off', 'aria-describedby': `${id}-help` },
      origins.join('\n'),
    ),
  ];
}

/**
 * A new API key, this once, in `into`: it is in no list, storage or later answer, and leaves the page
 * when the operator is done or leaves the screen. `back` takes the focus afterwards.
 */
export function merchantScreen(main, id) {
  const base = `/admin/merchants/${encodeURIComponent(id)}`;
  const title = h('h1', {}, 'Merchant');
  const details = h('div', { id: 'merchant-details' });
  const keys = h('div', { id: 'merchant-keys' });
  const issued = h('section', { id: 'new-key', class: 'new-key', hidden: true, 'aria-live': 'polite' });
  const status = h('p', { role: 'status' });
  const keyName = h('input', { id: 'key-name', name: 'key-name', maxlength: 255, autocomplete: 'off' });

  const say = (good, text) => {
    status.className = good ? 'good' : 'error';
    status.textContent = text;
  };

  const refresh = () => {
    // One answer for both parts: the merchant carries its keys (never the keys themselves).
    const loaded = get(base).then(({ data }) => data);
    return Promise.all([
      loadInto(details, {
        what: 'the merchant',
        load: () => loaded,
        render: (merchant) => {
          title.textContent = merchant.name;
          return editForm(merchant);
        },
      }),
      loadInto(keys, {
        what: "the merchant's API keys",
        load: async () => (await loaded).apiKeys,
        empty: 'This merchant has no API keys.',
        render: (list) => keysTable(list, revoke),
      }),
    ]);
  };

  function editForm(merchant) {
    const name = h('input', {
      id: 'merchant-name',
      name: 'merchant-name',
      required: true,
      maxlength: 255,
      autocomplete: 'off',
      value: merchant.name,
    });
    const form = h(
      'form',
      {
        onsubmit: async (event) => {
          event.preventDefault();
          const origins = form.querySelector('textarea');
          try {
            // The api takes the whole list of origins: what is sent replaces what was there.
            const { data } = await patch(base, {
              name: name.value.trim(),
              frontendOrigins: originsFrom(origins.value),
            });
            say(true, `${data.name} is saved.`);
          } catch (error) {
            say(false, `Could not save the merchant. ${errorText(error)}`);
          }
          await refresh();
        },
      },
      h('label', { for: 'merchant-name' }, 'Name'),
      name,
      originsField('merchant-origins', merchant.frontendOrigins),
      h(
        'p',
        { class: 'muted' },
        'Upstream sub-application (',
        h('code', {}, 'subApplicationId'),
        `): ${merchant.subApplicationId ?? 'none, the root application'}. `,
        merchant.disabledAt ? `Disabled since ${when(merchant.disabledAt)}.` : 'Enabled.',
      ),
      h('p', {}, h('button', { type: 'submit' }, 'Save')),
    );
    return form;
  }

  async function revoke(key) {
    const label = key.name ?? key.prefix;
    // A revoked key stops working at once, everywhere: the question is worth asking.
    if (!window.confirm(`Revoke the key "${label}"? Anything still using it stops working at once.`)) return;
    try {
      await del(`${base}/api-keys/${encodeURIComponent(key.id)}`);
      say(true, `The key "${label}" is revoked.`);
    } catch (error) {
      say(false, `Could not revoke the key. ${errorText(error)}`);
    }
    await refresh();
  }

  const issue = h(
    'form',
    {
      onsubmit: async (event) => {
        event.preventDefault();
        const button = issue.querySelector('button');
        button.disabled = true;
        try {
          const { data } = await post(`${base}/api-keys`, keyName.value ? { name: keyName.value } : {});
          keyName.value = '';
          showKeyOnce(issued, {
            title: 'The new key',
            key: data.key,
            advice: OPERATOR_KEY_ADVICE,
            back: keyName,
          });
        } catch (error) {
          say(false, `Could not issue a key. ${errorText(error)}`);
        } finally {
          button.disabled = false;
        }
        await refresh();
      },
    },
    h('label', { for: 'key-name' }, 'Name of the new key (optional)'),
    h('div', { class: 'row' }, keyName, h('button', { type: 'submit' }, 'Issue a key')),
  );

  main.append(
    title,
    h('p', {}, h('a', { href: '#/merchants' }, 'All merchants')),
    status,
    h('section', {}, h('h2', {}, 'Name and frontend origins'), details),
    h('section', {}, h('h2', {}, 'Issue a key'), issue),
    issued,
    h('section', {}, h('h2', {}, 'API keys'), keys),
  );
  void refresh();
}
