// A merchant's API keys: the list, issuing one (shown once), revoking one.
import { bff } from './api.js';
import { keysTable, showKeyOnce } from './api-keys.js';
import { loadInto } from './loading.js';
import { errorText, h, screenOf, submitting } from './ui.js';

/** What the screen's parts share: the status line (`say`), the list and `refresh`, which redraws it. */
function keysFields() {
  const parts = {
    list: h('div', { id: 'keys-list' }),
    issued: h('section', { id: 'new-key', class: 'new-key', hidden: true, 'aria-live': 'polite' }),
  };
  return { parts };
}

/** @typedef {import('./ui.js').ScreenWith<ReturnType<typeof keysFields>>} Screen */

function keysView() {
  return screenOf(keysFields(), refresh);
}

/** @param {Screen} screen */
function refresh(screen) {
  return loadInto(screen.parts.list, {
    what: 'your API keys',
    load: () => bff.merchant.keys(),
    empty: 'This merchant has no API keys.',
    render: (keys) => keysTable(keys, (key) => revoke(screen, key)),
  });
}

/**
 * @param {Screen} screen
 * @param {import('./merchant-sdk.js').ApiKey} key
 */
async function revoke(screen, key) {
  const label = key.name ?? key.prefix;
  // A revoked key stops working at once, everywhere: the question is worth asking.
  if (!window.confirm(`Revoke the key "${label}"? Anything still using it stops working at once.`)) return;
  try {
    await bff.merchant.revokeKey(key.id);
    screen.say(true, `The key "${label}" is revoked.`);
  } catch (error) {
    screen.say(false, `Could not revoke the key. ${errorText(error)}`);
  }
  await screen.refresh();
}

/**
 * Issuing a key: the new key is shown this once in the `issued` part.
 * @param {Screen} screen
 */
function issueForm(screen) {
  const name = h('input', { id: 'key-name', name: 'key-name', maxlength: 255, autocomplete: 'off' });
  const issue = submitting(async () => {
    try {
      const created = await bff.merchant.issueKey(name.value ? { name: name.value } : {});
      name.value = '';
      showKeyOnce(screen.parts.issued, {
        title: 'Your new key',
        key: created.key,
        advice: 'Copy it now: it is shown only this once. Keep it on your servers, never in a web page.',
        back: name,
      });
    } catch (error) {
      screen.say(false, `Could not issue a key. ${errorText(error)}`);
    }
    await screen.refresh();
  });
  return h(
    'form',
    { onsubmit: issue },
    h('label', { for: 'key-name' }, 'Name of the new key (optional)'),
    h('div', { class: 'row' }, name, h('button', { type: 'submit' }, 'Issue a key')),
  );
}

/** @param {HTMLElement} main */
export function keysScreen(main) {
  const screen = keysView();
  const { parts } = screen;
  main.append(
    h('h1', {}, 'API keys'),
    h(
      'p',
      {},
      'The keys your servers use to call the api. Revoking a key ends it, and any console session made with it, at once.',
    ),
    screen.status,
    h('section', {}, h('h2', {}, 'Issue a key'), issueForm(screen)),
    parts.issued,
    h('section', {}, h('h2', {}, 'Your keys'), parts.list),
  );
  void screen.refresh();
}
