// 2. Connecting a bank: the SDK's <bff-connect> lists the banks with a search, and runs the bank-page
// flow (coming back to this page, which it reads itself) or the embedded one in place. The page gives it
// the customer's session and listens for how it ended.
import '@open-banking-bff/merchant-sdk/connect';
import { recordingFetch } from './devpanel.js';
import { $, show, state } from './ui.js';

/**
 * A <bff-connect> for the current customer, in place of any before it. Everything it needs is set before
 * it is in the page: on its way back from the bank it reports the connection as soon as it is connected.
 */
export function mountConnect({ connected }) {
  const element = document.createElement('bff-connect');
  element.id = 'connector';
  element.setAttribute('base-url', state.apiUrl);
  element.setAttribute('user-id', state.customer.id);
  // A property, not an attribute: the token stays out of the DOM.
  element.sessionToken = state.token;
  // Its calls go through the fetch that notes each one in the developer panel, as the page's own do.
  element.fetch = recordingFetch();
  element.addEventListener('connected', (event) => void connected(event.detail.consent));
  element.addEventListener('failed', (event) => {
    const { consent, error } = event.detail;
    const where = consent ? ` at ${consent.institutionId} (${consent.status})` : '';
    const trace = error.tracingId ? `, tracingId ${error.tracingId}` : '';
    show('connect-status', `Bank connection failed${where}: ${error.message} (${error.code}${trace})`, true);
  });
  // Backed out here, or declined at the bank (the consent then says REJECTED).
  element.addEventListener('cancelled', (event) => {
    const consent = event.detail.consent;
    show('connect-status', `Bank connection cancelled${consent ? `: ${consent.status}` : '.'}`);
  });
  $('connector')?.remove();
  $('connect-status').before(element);
}
