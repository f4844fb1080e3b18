// The demo merchant's page: the code a merchant's frontend would have. It holds one customer's session
// token (minted by the demo's own backend, which keeps the merchant API key) and calls the BFF with it
// through the merchant SDK; connecting a bank is the SDK's <bff-connect> component.
import { createBffClient } from '@open-banking-bff/merchant-sdk';
import { mountConnect } from './connect.js';
import { refreshConsents } from './consents.js';
import { backend, logCall, recordingFetch } from './devpanel.js';
import { followReturnedPayment, refreshPayments, singlePay, vrpPay, vrpSetup } from './payments.js';
import { followSyncs, noteSyncEvent, refreshAccounts } from './sync.js';
import { drawPictures, loadTransactions } from './transactions.js';
import { $, errorText, show, soon, state } from './ui.js';

// ---- 1. the customer ------------------------------------------------------------------------------------

async function loadCustomers() {
  const answer = await backend('GET', '/demo/customers');
  const select = $('customer-select');
  select.replaceChildren();
  for (const user of answer.body?.data ?? []) select.add(new Option(user.reference, user.id));
}

async function useCustomer(id, reference) {
  const answer = await backend('POST', `/demo/customers/${id}/session`);
  if (!answer.ok) return show('customer-current', answer.body?.error?.message ?? 'No session', true);
  state.customer = { id, reference };
  state.token = answer.body.data.token;
  sessionStorage.setItem('customer', JSON.stringify(state.customer));
  sessionStorage.setItem('token', state.token);
  await enter();
}

async function createCustomer() {
  const answer = await backend('POST', '/demo/customers', { reference: $('customer-new').value });
  if (!answer.ok) return show('customer-current', answer.body?.error?.message ?? 'Not created', true);
  await loadCustomers();
  await useCustomer(answer.body.data.id, answer.body.data.reference);
}

// ---- the customer's events: what moved, so each panel refreshes itself --------------------------------

/**
 * The customer's events, live, through the SDK's stream: it reconnects by itself and resumes after the
 * last event it gave. From the start of the stream ('0'): syncs that ran before the page opened count too.
 */
let stream = null;
async function listen() {
  // Another customer chosen: the previous one's events are not this page's any more.
  stream?.close();
  stream = state.bff.events.stream(state.customer.id, { lastEventId: '0' });
  try {
    for await (const event of stream) {
      logCall('SSE', event.type, 'event', event.id);
      noteSyncEvent(event);
      if (
        event.type.startsWith('sync.') ||
        event.type === 'consent.synced' ||
        event.type === 'transactions.changed'
      )
        soon('sync', followSyncs);
      if (event.type.startsWith('consent.')) soon('consents', refreshConsents);
      if (event.type.startsWith('payment.')) soon('payments', refreshPayments);
    }
  } catch (error) {
    // Only a refusal ends the stream (the session expired, say): a dropped connection is resumed.
    show('sync-status', `Live updates stopped: ${errorText(error)}`, true);
  }
}

/** A bank connected (either way, or re-authorised): its accounts, and their first sync as it runs. */
async function connected(consent) {
  show('connect-status', `Bank connection (${consent.institutionId}): ${consent.status}`);
  await Promise.all([refreshConsents(), followSyncs()]);
}

async function enter() {
  // Every call to the BFF goes through this client, with the customer's session token; its fetch notes
  // each call in the developer panel.
  state.bff = createBffClient({ baseUrl: state.apiUrl, token: state.token, fetch: recordingFetch() });
  show('customer-current', `Customer: ${state.customer.reference}`);
  $('customer-select').value = state.customer.id;
  for (const id of ['connect', 'sync', 'transactions', 'pictures', 'consents', 'payments'])
    $(id).hidden = false;
  void listen();
  mountConnect({ connected });
  await Promise.all([
    refreshAccounts().catch((error) => show('sync-status', errorText(error), true)),
    refreshConsents(),
    refreshPayments(),
  ]);
}

// ---- start ------------------------------------------------------------------------------------------------

async function start() {
  state.apiUrl = (await (await fetch('/demo/config')).json()).apiUrl;
  $('customer-use').onclick = () => {
    const select = $('customer-select');
    if (select.value) void useCustomer(select.value, select.selectedOptions[0].text);
  };
  $('customer-create').onclick = () => void createCustomer();
  $('tx-apply').onclick = () => void Promise.all([loadTransactions(true), drawPictures()]);
  $('tx-account').onchange = () => void Promise.all([loadTransactions(true), drawPictures()]);
  $('tx-more').onclick = () => void loadTransactions(false);
  $('vrp-setup').onclick = () => void vrpSetup();
  $('vrp-pay').onclick = () => void vrpPay();
  $('single-pay').onclick = () => void singlePay();
  await loadCustomers();
  if (!state.customer || !state.token) return;
  await enter();
  // Back from the bank after a payment: say how it went (<bff-connect> reads its own way back).
  const query = new URLSearchParams(location.search);
  if (query.get('from') === 'vrp') {
    show('vrp-status', `Sweeping set up: ${query.get('status')}`, query.get('status') !== 'AUTHORIZED');
  } else if (query.get('from') === 'payment') {
    followReturnedPayment(query);
  } else {
    await followSyncs();
  }
}

void start();
