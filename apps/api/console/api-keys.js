// What the merchant's own keys screen and the operator's merchant screen show of API keys alike: the
// list with its revoke buttons, and a new key, shown this once.
import { announce, h, table, when } from './ui.js';

/** @typedef {import('./merchant-sdk.js').ApiKey} ApiKey */

/**
 * The keys as a table; `revoke(key)` is called from a key's button.
 * @param {ApiKey[]} keys
 * @param {(key: ApiKey) => unknown} revoke
 */
export function keysTable(keys, revoke) {
  return table(
    'API keys',
    ['Name', 'Starts with', 'Created', 'Last used', 'Expires', 'State', ''],
    keys.map((key) => [
      key.name ?? '(no name)',
      h('code', {}, `${key.prefix}…`),
      when(key.createdAt),
      key.lastUsedAt ? when(key.lastUsedAt) : 'Never',
      key.expiresAt ? when(key.expiresAt) : 'Never',
      key.revokedAt ? `Revoked ${when(key.revokedAt)}` : 'Active',
      key.revokedAt
        ? ''
        : h(
            'button',
            {
              type: 'button',
              class: 'danger',
              'aria-label': `Revoke the key ${key.name ?? key.prefix}`,
              onclick: () => revoke(key),
            },
            'Revoke',
          ),
    ]),
  );
}

/**
 * A new key in `into`, this once: it is in no list, storage or later answer, and leaves the page when the
 * user says it is copied (focus then goes to `back`).
 * @param {HTMLElement} into
 * @param {{ title: string, key: string | undefined, advice: string, back?: HTMLElement }} shown
 */
export function showKeyOnce(into, { title, key, advice, back }) {
  const done = h('button', { type: 'button', class: 'secondary' }, 'I have copied it');
  done.addEventListener('click', () => {
    into.replaceChildren();
    into.hidden = true;
    back?.focus();
  });
  const shownKey = h('input', { id: 'new-key-value', readonly: true, value: key, class: 'mono' });
  into.replaceChildren(
    h('h2', {}, title),
    h('p', {}, advice),
    h('label', { for: 'new-key-value' }, 'New API key'),
    shownKey,
    h('p', {}, done),
  );
  into.hidden = false;
  shownKey.select();
  announce('A new API key was issued. Copy it now: it is shown only this once.');
}
