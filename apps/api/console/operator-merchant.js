// One merchant, from the operator's side: its name and frontend origins, its upstream sub-application
// (operator-sub-application.js), and its API keys (the list, issuing one shown once, revoking one). Also
// what the merchants' list borrows for on-boarding.
import { operator } from './api.js';
import { keysTable, showKeyOnce } from './api-keys.js';
import { loadInto } from './loading.js';
import { knownSubApplications, subApplicationForm } from './operator-sub-application.js';
import { errorText, h, screenOf, submitting, when } from './ui.js';

/** What the operator is told of a merchant's new key. */
export const OPERATOR_KEY_ADVICE =
  'Copy it now and hand it to the merchant: it is shown only this once. It belongs on their servers, never in a web page.';

/**
 * One origin a line, as the api takes them (`frontendOrigins`): blank lines and spaces dropped.
 * @param {string} text
 */
export function originsFrom(text) {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * A field for `frontendOrigins`, one origin a line (the api takes at most 20).
 * @param {string} id
 * @param {string[]} [origins] what it holds at first
 */
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
 * What the screen's parts share: the merchant's id, the status line (`say`) and `refresh`, which reads the
 * merchant again and redraws every part from the one answer.
 * @param {string} id
 */
function merchantFields(id) {
  const parts = {
    title: h('h1', {}, 'Merchant'),
    details: h('div', { id: 'merchant-details' }),
    subApplication: h('div', { id: 'merchant-sub-application-part' }),
    keys: h('div', { id: 'merchant-keys' }),
  };
  return {
    id,
    parts,
    known: knownSubApplications(),
  };
}

/** @typedef {import('./ui.js').ScreenWith<ReturnType<typeof merchantFields>>} Screen */

/** @param {string} id */
function merchantView(id) {
  return screenOf(merchantFields(id), refresh);
}

/**
 * One answer for every part: the merchant carries its keys (never the keys themselves).
 * @param {Screen} screen
 */
function refresh(screen) {
  const { parts } = screen;
  const loaded = operator.get('/admin/merchants/{id}', { path: { id: screen.id } }).then(({ data }) => data);
  return Promise.all([
    loadInto(parts.details, {
      what: 'the merchant',
      load: () => loaded,
      render: (merchant) => {
        parts.title.textContent = merchant.name;
        return editForm(screen, merchant);
      },
    }),
    loadInto(parts.subApplication, {
      what: 'its sub-application',
      load: () => loaded,
      render: (merchant) => subApplicationForm(screen, merchant, screen.known),
    }),
    loadInto(parts.keys, {
      what: "the merchant's API keys",
      load: async () => (await loaded).apiKeys,
      empty: 'This merchant has no API keys.',
      render: (list) => keysTable(list, (key) => revoke(screen, key)),
    }),
  ]);
}

/**
 * @param {Screen} screen
 * @param {import('./operator-client').Schema<'MerchantOutput'>} merchant
 */
function editForm(screen, merchant) {
  const name = h('input', {
    id: 'merchant-name',
    name: 'merchant-name',
    required: true,
    maxlength: 255,
    autocomplete: 'off',
    value: merchant.name,
  });
  const save = submitting(async () => {
    const origins = /** @type {HTMLTextAreaElement} */ (form.querySelector('textarea'));
    try {
      // The api takes the whole list of origins: what is sent replaces what was there.
      const { data } = await operator.patch('/admin/merchants/{id}', {
        path: { id: screen.id },
        body: { name: name.value.trim(), frontendOrigins: originsFrom(origins.value) },
      });
      screen.say(true, `${data.name} is saved.`);
      await screen.refresh();
    } catch (error) {
      // Nothing is redrawn: what was typed stays, to be corrected.
      screen.say(false, `Could not save the merchant. ${errorText(error)}`);
    }
  });
  const form = h(
    'form',
    { onsubmit: save },
    h('label', { for: 'merchant-name' }, 'Name'),
    name,
    originsField('merchant-origins', merchant.frontendOrigins),
    h(
      'p',
      { class: 'muted' },
      merchant.disabledAt ? `Disabled since ${when(merchant.disabledAt)}.` : 'Enabled.',
    ),
    h('p', {}, h('button', { type: 'submit' }, 'Save')),
  );
  return form;
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
    await operator.delete('/admin/merchants/{id}/api-keys/{keyId}', {
      path: { id: screen.id, keyId: key.id },
    });
    screen.say(true, `The key "${label}" is revoked.`);
  } catch (error) {
    screen.say(false, `Could not revoke the key. ${errorText(error)}`);
  }
  await screen.refresh();
}

/**
 * Issuing a key: the new key is shown this once in `issued`; it is in no list, storage or later answer,
 * and leaves the page when the operator is done or leaves the screen.
 * @param {Screen} screen
 * @param {HTMLElement} issued
 */
function issueForm(screen, issued) {
  const keyName = h('input', { id: 'key-name', name: 'key-name', maxlength: 255, autocomplete: 'off' });
  const issue = submitting(async () => {
    try {
      const { data } = await operator.post('/admin/merchants/{id}/api-keys', {
        path: { id: screen.id },
        body: keyName.value ? { name: keyName.value } : {},
      });
      keyName.value = '';
      showKeyOnce(issued, {
        title: 'The new key',
        key: data.key,
        advice: OPERATOR_KEY_ADVICE,
        back: keyName,
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
    h('div', { class: 'row' }, keyName, h('button', { type: 'submit' }, 'Issue a key')),
  );
}

/**
 * @param {HTMLElement} main
 * @param {string} id
 */
export function merchantScreen(main, id) {
  const screen = merchantView(id);
  const { parts } = screen;
  const issued = h('section', { id: 'new-key', class: 'new-key', hidden: true, 'aria-live': 'polite' });
  main.append(
    parts.title,
    h(
      'p',
      {},
      h('a', { href: '#/merchants' }, 'All merchants'),
      ' · ',
      h('a', { href: `#/audit/${encodeURIComponent(id)}` }, 'Its audit log'),
      ' · ',
      h('a', { href: `#/conversion/${encodeURIComponent(id)}` }, 'Its conversion'),
      ' · ',
      h('a', { href: `#/connect-funnel/${encodeURIComponent(id)}` }, 'Its connect funnel'),
      ' · ',
      h('a', { href: `#/bank-health/${encodeURIComponent(id)}` }, 'Its bank health'),
    ),
    screen.status,
    h('section', {}, h('h2', {}, 'Name and frontend origins'), parts.details),
    h('section', {}, h('h2', {}, 'Upstream sub-application'), parts.subApplication),
    h('section', {}, h('h2', {}, 'Issue a key'), issueForm(screen, issued)),
    issued,
    h('section', {}, h('h2', {}, 'API keys'), parts.keys),
  );
  void screen.refresh();
}
