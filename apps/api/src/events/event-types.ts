import { MERCHANT_EVENT_TYPE_NAMES, MERCHANT_EVENT_TYPES } from '#libs/domain/events';
import { dataMembersOf } from './outputs/merchant-event.output.js';

/** Every merchant event type with what it means and its `data`: for the inputs and outputs that name types. */
export const EVENT_TYPES_DESCRIPTION = MERCHANT_EVENT_TYPE_NAMES.map(
  (t) => `- \`${t}\`: ${MERCHANT_EVENT_TYPES[t].description} \`data\`: ${dataMembersOf(t).join(', ')}.`,
).join('\n');
