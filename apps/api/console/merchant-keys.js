// A merchant's API keys: the list, issuing one (shown once), revoking one.
import { bff } from './api.js';
import { keysTable, showKeyOnce } from './api-keys.js';
import { errorText, h, loadInto, submitting } from './ui.js';

export function keysScreen(main) {
  const list = h('div', { id: 'keys-list' });
  const issued = h('section', { id: 'new-key', class: 'new-key', hidden: true, 'aria-live': 'polite' });
  const status = h('p', { role: 'status' });
  const name = h('input', { id: 'key-name', name: 'key-name', maxlength: 255, autocomplete: 'off' });

  const refresh = () =>
    loadInto(list, {
      what: 'your API keys',
      load: () => bff.merchant.keys(),
      empty: 'This merchant has no API keys.',
      render: (keys) => keysTable(keys, revoke),
    });

  async function revoke(key) {
    const label = key.name ?? key.prefix;
    // A revoked key stops working at once, everywhere: the question is worth asking.
    if (!window.confirm(`Revoke the key "${label}"? Anything still using it stops working at once.`)) return;
    try {
      await bff.merchant.revokeKey(key.id);
      status.className = 'good';
      status.textContent = `The key "${label}" is revoked.`;
    } catch (error) {
      status.className = 'error';
      status.textContent = `Could not revoke the key. ${errorText(error)}`;
    }
    await refresh();
  }

  const form = h(
    'form',
    {
      onsubmit: submitting(async () => {
        try {
          const created = await bff.merchant.issueKey(name.value ? { name: name.value } : {});
          name.value = '';
          showKeyOnce(issued, {
            title: 'Your new key',
            key: created.key,
            advice: 'Copy it now: it is shown only this once. Keep it on your servers, never in a web page.',
            back: name,
          });
        } catch (error) {
          status.className = 'error';
          status.textContent = `Could not issue a key. ${errorText(error)}`;
        }
        await refresh();
      }),
    },
    h('label', { for: 'key-name' }, 'Name of the new key (optional)'),
    h('div', { class: 'row' }, name, h('button', { type: 'submit' }, 'Issue a key')),
  );

  main.append(
    h('h1', {}, 'API keys'),
    h(
      'p',
      {},
      'The keys your servers use to call the api. Revoking a key ends it, and any console session made with it, at once.',
    ),
    status,
    h('section', {}, h('h2', {}, 'Issue a key'), form),
    issued,
    h('section', {}, h('h2', {}, 'Your keys'), list),
  );
  void refresh();
}
