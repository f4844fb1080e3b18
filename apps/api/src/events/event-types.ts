import { MERCHANT_EVENT_TYPE_NAMES, MERCHANT_EVENT_TYPES } from '#libs/domain/events';

/** Every merchant event type with what it means and its `data`: for the inputs and outputs that name types. */
export const EVENT_TYPES_DESCRIPTION = MERCHANT_EVENT_TYPE_NAMES.map(
  (t) =>
    `- \`${t}\`: ${MERCHANT_EVENT_TYPES[t].description} \`data\`: ${MERCHANT_EVENT_TYPES[t].data.join(', ')}.`,
).join('\n');
