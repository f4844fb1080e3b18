// An event endpoint's fields (its address, the types it takes and its rate limit): one form for adding
// one and for changing one, so both say and accept the same.
import { eventWords, subscribableTypes } from './event-types.js';
import { h } from './ui.js';

/**
 * `prefix` keeps the ids unique on the page; `endpoint` (when changing one) fills the fields in.
 * @param {string} prefix
 * @param {import('./merchant-sdk.js').EventEndpoint} [endpoint]
 */
export function endpointFields(prefix, endpoint) {
  const url = h('input', {
    id: `${prefix}-url`,
    name: `${prefix}-url`,
    type: 'url',
    required: true,
    placeholder: 'https://shop.example/webhooks',
    autocomplete: 'off',
    value: endpoint?.url,
  });
  const rate = rateField(prefix, endpoint);
  const types = subscribableTypes();
  const boxes = types.map((type) =>
    h('input', {
      type: 'checkbox',
      id: `${prefix}-type-${type}`,
      name: `${prefix}-types`,
      value: type,
      checked: endpoint?.types.includes(type),
    }),
  );
  return {
    url,
    elements: [
      h('label', { for: url.id }, 'Address of the endpoint'),
      h('p', { class: 'muted' }, 'Where your server takes the events: https, without redirects.'),
      url,
      h(
        'fieldset',
        {},
        h('legend', {}, 'Which events (none ticked: every type)'),
        types.map((type, i) =>
          h(
            'div',
            { class: 'check' },
            boxes[i],
            h('label', { for: boxes[i].id }, `${eventWords(type)} `, h('code', {}, type)),
          ),
        ),
      ),
      ...rate.elements,
    ],
    /** What the form says now, as the api takes it. */
    read: () => ({
      url: url.value.trim(),
      types: types.filter((_, i) => boxes[i].checked),
      rateLimit: rate.input.value.trim() === '' ? null : Number(rate.input.value),
    }),
    clear: () => {
      url.value = '';
      rate.input.value = '';
      for (const box of boxes) box.checked = false;
    },
  };
}

/**
 * The rate limit: a whole number, or empty for none. Its range is the api's to say (its refusal names
 * it), so the field only asks for a whole number.
 * @param {string} prefix
 * @param {import('./merchant-sdk.js').EventEndpoint} [endpoint]
 */
function rateField(prefix, endpoint) {
  const input = h('input', {
    id: `${prefix}-rate-limit`,
    name: `${prefix}-rate-limit`,
    type: 'number',
    step: 1,
    inputmode: 'numeric',
    placeholder: 'No limit',
    'aria-describedby': `${prefix}-rate-limit-help`,
    value: endpoint?.rateLimit,
  });
  return {
    input,
    elements: [
      h('label', { for: input.id }, 'Most deliveries a second'),
      h(
        'p',
        { class: 'muted', id: `${prefix}-rate-limit-help` },
        'Empty: as fast as they come. Above it, deliveries wait their turn; none fails for it.',
      ),
      input,
    ],
  };
}
