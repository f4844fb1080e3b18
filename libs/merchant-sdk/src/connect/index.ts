// `@open-banking-bff/merchant-sdk/connect`: the `<bff-connect>` web component. Importing this module
// defines the element, once: a second import (or a second copy of the SDK) keeps the first definition.
// docs/sdk.md ("The `<bff-connect>` component") describes its attributes, events, flows and styling.
import { BffConnectElement } from './bff-connect.element.js';

export { BffConnectElement } from './bff-connect.element.js';
export type {
  BffConnectEventMap,
  CancelledDetail,
  ConnectedDetail,
  ConnectError,
  FailedDetail,
} from './connect-types.js';

/** The element's tag name. */
export const BFF_CONNECT_TAG = 'bff-connect';

if (typeof customElements !== 'undefined' && !customElements.get(BFF_CONNECT_TAG)) {
  customElements.define(BFF_CONNECT_TAG, BffConnectElement);
}

declare global {
  interface HTMLElementTagNameMap {
    'bff-connect': BffConnectElement;
  }
}
