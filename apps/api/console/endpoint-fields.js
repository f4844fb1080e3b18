// An event endpoint's fields (its address and the types it takes): one form for adding one and for
// changing one, so both say and accept the same.
import { EVENT_TYPES, h, plain } from './ui.js';

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
  const boxes = EVENT_TYPES.map((type) =>
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
        EVENT_TYPES.map((type, i) =>
          h(
            'div',
            { class: 'check' },
            boxes[i],
            h('label', { for: boxes[i].id }, `${plain('eventType', type)} `, h('code', {}, type)),
          ),
        ),
      ),
    ],
    /** What the form says now, as the api takes it. */
    read: () => ({
      url: url.value.trim(),
      types: EVENT_TYPES.filter((_, i) => boxes[i].checked),
    }),
    clear: () => {
      url.value = '';
      for (const box of boxes) box.checked = false;
    },
  };
}
