// Whose figures an operator's screen shows: every merchant's, or one merchant's (its id in the address,
// linked from the merchant's screen), named once it is read.
import { operator } from './api.js';
import { h } from './ui.js';

/**
 * A line naming the one merchant and linking to every merchant's view; nothing for every merchant's.
 * @param {string} everyHref the screen across merchants
 * @param {string | undefined} merchantId
 * @param {string} everyText the link's words
 * @returns {Node[]}
 */
export function operatorScope(everyHref, merchantId, everyText) {
  if (!merchantId) return [];
  const whose = document.createTextNode('Of one merchant. ');
  void operator
    .get('/admin/merchants/{id}', { path: { id: merchantId } })
    .then(({ data }) => {
      whose.textContent = `Of ${data.name}. `;
    })
    .catch(() => undefined);
  return [h('p', {}, whose, h('a', { href: everyHref }, everyText))];
}
