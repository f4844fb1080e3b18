// The demo merchant's page. It holds one customer's session token (minted by the demo's own backend,
// which keeps the merchant API key) and calls the BFF's merchant API with it, as any merchant frontend.
import { barChart, formatMinor, lineChart, summarise } from './charts.js';

const $ = (id) => document.getElementById(id);
const state = {
  apiUrl: '',
  customer: JSON.parse(sessionStorage.getItem('customer') ?? 'null'),
  token: sessionStorage.getItem('token'),
  accounts: [],
  next: null,
  stream: null,
  /** The newest authorised sweeping consent, as the API lists it (refreshConsents). */
  vrpConsentId: null,
  embeddedBank: null,
};
const newKey = () => crypto.randomUUID();
const back = (path) => `${location.origin}/${path}`;

// ---- every call, shown in the developer panel ---------------------------------------------------------

function logCall(method, path, status, tracingId) {
  const row = document.createElement('tr');
  for (const text of [method, path, String(status), tracingId ?? '']) {
    const cell = document.createElement('td');
    cell.textContent = text;
    row.append(cell);
  }
  $('calls').tBodies[0].prepend(row);
}

async function call(base, method, path, { body, key, auth = true } = {}) {
  const headers = {};
  if (auth && state.token) headers.authorization = `Bearer ${state.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (key) headers['idempotency-key'] = key;
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = response.status === 204 ? null : await response.json().catch(() => null);
  const tracingId = json?.meta?.tracingId ?? json?.error?.tracingId ?? response.headers.get('x-request-id');
  logCall(method, base === state.apiUrl ? path : `(demo backend) ${path}`, response.status, tracingId);
  return { status: response.status, body: json };
}
const api = (method, path, options) => call(state.apiUrl, method, path, options);
const backend = (method, path, body) => call('', method, path, { body, auth: false });
const errorOf = (answer) => answer.body?.error?.message ?? `HTTP ${answer.status}`;

function show(id, text, error = false) {
  $(id).textContent = text;
  $(id).classList.toggle('error', error);
}

// ---- 1. the customer ------------------------------------------------------------------------------------

async function loadCustomers() {
  const answer = await backend('GET', '/demo/customers');
  const select = $('customer-select');
  select.replaceChildren();
  for (const user of answer.body?.data ?? []) select.add(new Option(user.reference, user.id));
}

async function useCustomer(id, reference) {
  const answer = await backend('POST', `/demo/customers/${id}/session`);
  if (answer.status !== 201) return show('customer-current', errorOf(answer), true);
  state.customer = { id, reference };
  state.token = answer.body.data.token;
  sessionStorage.setItem('customer', JSON.stringify(state.customer));
  sessionStorage.setItem('token', state.token);
  await enter();
}

async function enter() {
  show('customer-current', `Customer: ${state.customer.reference}`);
  $('customer-select').value = state.customer.id;
  for (const id of ['connect', 'sync', 'transactions', 'pictures', 'consents', 'payments'])
    $(id).hidden = false;
  listen();
  await Promise.all([loadInstitutions(), refreshAccounts(), refreshConsents(), refreshPayments()]);
}

// ---- 2. connecting a bank ----------------------------------------------------------------------------

const FLOW_NAMES = { REDIRECT: 'bank page', EMBEDDED: 'embedded' };

/** The banks the customer can connect, each saying which ways it offers; a bank-page one chosen first. */
async function loadInstitutions() {
  const params = new URLSearchParams({ limit: '100', feature: 'ACCOUNT_TRANSACTIONS' });
  if ($('institution-search').value) params.set('q', $('institution-search').value);
  if ($('institution-country').value) params.set('country', $('institution-country').value);
  const answer = await api('GET', `/v1/institutions?${params}`);
  const banks = answer.body?.data ?? [];
  const select = $('institution-select');
  select.replaceChildren();
  for (const bank of banks) {
    const flows = bank.flows ?? [];
    const option = new Option(
      `${bank.name ?? bank.id} (${flows.map((f) => FLOW_NAMES[f] ?? f).join(', ') || 'no data connection'})`,
      bank.id,
    );
    option.dataset.flows = flows.join(' ');
    select.add(option);
  }
  // A bank-page bank first, so the first click works; the sandbox's well-behaved one when it is there
  // (sandbox-flaky, first by id, fails a share of calls on purpose).
  const redirect =
    banks.find((b) => b.id === 'sandbox-redirect') ?? banks.find((b) => b.flows?.includes('REDIRECT'));
  if (redirect) select.value = redirect.id;
  // The embedded section connects the first bank that offers it.
  state.embeddedBank = banks.find((b) => b.flows?.includes('EMBEDDED'))?.id ?? null;
  $('embedded').hidden = !state.embeddedBank;
  $('embedded-bank').textContent = state.embeddedBank ?? '';
  chosenBank();
}

/** "Connect (bank page)" only for a bank that has one; otherwise say what it offers instead. */
function chosenBank() {
  const option = $('institution-select').selectedOptions[0];
  const flows = option?.dataset.flows?.split(' ').filter(Boolean) ?? [];
  $('connect-redirect').disabled = !flows.includes('REDIRECT');
  const status = $('connect-status');
  if (option && !flows.includes('REDIRECT')) {
    status.dataset.flowHint = 'true';
    show(
      'connect-status',
      flows.includes('EMBEDDED')
        ? `${option.value} has no bank page: connect it the embedded way below.`
        : `${option.value} offers no way to connect for data.`,
    );
  } else if (status.dataset.flowHint) {
    delete status.dataset.flowHint;
    show('connect-status', '');
  }
}

async function connectRedirect() {
  const answer = await api('POST', `/v1/users/${state.customer.id}/consents`, {
    body: { institutionId: $('institution-select').value, redirectUrl: back('?from=bank') },
    key: newKey(),
  });
  if (answer.status !== 201) return show('connect-status', errorOf(answer), true);
  location.assign(answer.body.data.authorisationUrl);
}

let embeddedId = null;
async function embeddedStart() {
  const answer = await api('POST', `/v1/users/${state.customer.id}/consents/embedded`, {
    body: {
      institutionId: state.embeddedBank,
      credentials: { id: $('embedded-user').value, password: $('embedded-password').value },
    },
  });
  if (answer.status !== 201) return show('embedded-status', errorOf(answer), true);
  embeddedId = answer.body.data.id;
  embeddedStep(answer.body.data);
}

function embeddedStep(consent) {
  show('embedded-status', `Status: ${consent.status}`);
  const methods = $('embedded-methods');
  methods.hidden = consent.status !== 'AWAITING_SCA_METHOD';
  methods.replaceChildren();
  for (const method of consent.scaMethods ?? []) {
    const button = document.createElement('button');
    button.textContent = `Use ${method.description ?? method.type ?? method.id}`;
    button.dataset.method = method.id;
    button.onclick = async () => {
      const answer = await api('POST', `/v1/consents/${embeddedId}/sca-method`, {
        body: { scaMethodId: method.id },
      });
      if (answer.status !== 200) return show('embedded-status', errorOf(answer), true);
      embeddedStep(answer.body.data);
    };
    methods.append(button);
  }
  $('embedded-code').hidden = consent.status !== 'AWAITING_SCA_CODE';
}

async function embeddedCode() {
  const answer = await api('POST', `/v1/consents/${embeddedId}/sca-code`, {
    body: { code: $('embedded-code-input').value },
  });
  if (answer.status !== 202) return show('embedded-status', errorOf(answer), true);
  $('embedded-code').hidden = true;
  show('embedded-status', 'Code sent; the bank is authorising…');
  for (let i = 0; i < 120; i++) {
    const consent = (await api('GET', `/v1/consents/${embeddedId}`)).body?.data;
    if (consent && consent.status !== 'AWAITING_AUTHORIZATION') {
      show('embedded-status', `Status: ${consent.status}`, consent.status !== 'AUTHORIZED');
      return Promise.all([refreshAccounts(), refreshConsents(), followSyncs()]);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

// ---- 3. the first sync, live: events over SSE, progress from the sync runs -----------------------------

async function listen() {
  if (state.stream) return;
  state.stream = new AbortController();
  const path = `/v1/users/${state.customer.id}/events`;
  // From the start of the customer's stream: the syncs that ran before this page opened count too.
  const response = await fetch(`${state.apiUrl}${path}`, {
    headers: { authorization: `Bearer ${state.token}`, accept: 'text/event-stream', 'last-event-id': '0' },
    signal: state.stream.signal,
  });
  logCall('GET', `${path} (SSE)`, response.status, response.headers.get('x-request-id'));
  if (!response.ok) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split('\n').find((line) => line.startsWith('data: '));
      if (data) onEvent(JSON.parse(data.slice(6)));
    }
  }
}

const progressByAccount = new Map();
const timers = new Map();
/** Many events in a burst (a replay, a sync's pages) refresh each part of the page once. */
function soon(name, refresh) {
  clearTimeout(timers.get(name));
  timers.set(
    name,
    setTimeout(() => void refresh(), 250),
  );
}

function onEvent(event) {
  logCall('SSE', event.type, 'event', event.id);
  if (event.type === 'sync.succeeded') progressByAccount.set(event.data.accountId, event.data.progress);
  if (event.type.startsWith('sync.') || event.type === 'transactions.changed') soon('sync', followSyncs);
  if (event.type.startsWith('consent.')) soon('consents', refreshConsents);
  if (event.type.startsWith('payment.')) soon('payments', refreshPayments);
}

let following = false;
async function followSyncs() {
  if (following) return;
  following = true;
  try {
    for (;;) {
      await refreshAccounts();
      const runs = [];
      for (const account of state.accounts) {
        // Only an account still on its way has a run to follow; the others are as done as they get.
        if (!['pending', 'syncing'].includes(account.sync?.status)) {
          runs.push({ status: 'succeeded', progress: progressByAccount.get(account.id), account });
          continue;
        }
        const started = await api('POST', `/v1/accounts/${account.id}/sync`);
        const run = started.body?.data?.syncId
          ? (await api('GET', `/v1/syncs/${started.body.data.syncId}`)).body?.data
          : null;
        runs.push({ status: run?.status ?? 'queued', progress: run?.progress, account });
      }
      const done = runs.filter((r) => r.status === 'succeeded' || r.status === 'failed').length;
      const pages = runs.reduce((n, r) => n + (r.progress?.pages ?? 0), 0);
      const fetched = runs.reduce((n, r) => n + (r.progress?.fetched ?? 0), 0);
      $('sync-progress').max = Math.max(1, runs.length);
      $('sync-progress').value = done;
      show(
        'sync-status',
        `${done} of ${runs.length} accounts synced; ${pages} pages, ${fetched} transactions fetched`,
      );
      if (runs.length > 0 && done === runs.length) {
        $('sync-status').dataset.done = 'true';
        await Promise.all([loadTransactions(true), drawPictures()]);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 700));
    }
  } finally {
    following = false;
  }
}

async function refreshAccounts() {
  const answer = await api('GET', `/v1/users/${state.customer.id}/accounts`);
  state.accounts = answer.body?.data ?? [];
  const box = $('accounts');
  box.replaceChildren();
  const select = $('tx-account');
  const chosen = select.value;
  select.replaceChildren();
  for (const account of state.accounts) {
    const balance = account.balances?.[0]?.balance;
    const div = document.createElement('div');
    div.className = 'account';
    div.dataset.accountId = account.id;
    div.textContent = `${account.nickname ?? account.type ?? 'Account'}: ${
      balance ? formatMinor(Math.round(Number(balance.amount) * 100), balance.currency) : '—'
    } (${account.sync?.status ?? 'unknown'})`;
    box.append(div);
    select.add(new Option(`${account.nickname ?? account.type} ${account.id.slice(-6)}`, account.id));
  }
  if (chosen) select.value = chosen;
}

// ---- 4. transactions ----------------------------------------------------------------------------------

async function loadTransactions(fresh) {
  const account = $('tx-account').value;
  if (!account) return;
  let path = state.next;
  if (fresh || !path) {
    const params = new URLSearchParams({ limit: '25' });
    if ($('tx-from').value) params.set('from', new Date($('tx-from').value).toISOString());
    if ($('tx-before').value) params.set('before', new Date($('tx-before').value).toISOString());
    if ($('tx-status').value) params.set('status', $('tx-status').value);
    path = `/v1/accounts/${account}/transactions?${params}`;
    $('tx-table').tBodies[0].replaceChildren();
  }
  const answer = await api('GET', path);
  if (answer.status !== 200) return;
  for (const t of answer.body.data) {
    const row = document.createElement('tr');
    row.className = t.status === 'PENDING' ? 'pending' : '';
    const amount = formatMinor(Math.round(Number(t.amount) * 100), t.currency);
    for (const [text, cls] of [
      [t.date.slice(0, 10), ''],
      [t.description ?? '', ''],
      [t.status === 'PENDING' ? 'pending' : 'booked', ''],
      [amount, 'num'],
    ]) {
      const cell = document.createElement('td');
      cell.textContent = text;
      if (cls) cell.className = cls;
      row.append(cell);
    }
    $('tx-table').tBodies[0].append(row);
  }
  state.next = answer.body.links?.next ?? null;
  $('tx-more').hidden = !state.next;
}

// ---- 5. pictures: every transaction of the last 12 months, from the BFF's store -------------------------

async function drawPictures() {
  const account = $('tx-account').value;
  if (!account) return;
  const from = new Date(
    Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 11, 1),
  ).toISOString();
  const all = [];
  let path = `/v1/accounts/${account}/transactions?limit=1000&from=${encodeURIComponent(from)}`;
  while (path) {
    const answer = await api('GET', path);
    if (answer.status !== 200) return;
    all.push(...answer.body.data);
    path = answer.body.links?.next ?? null;
  }
  const currency = all[0]?.currency ?? 'GBP';
  const summary = summarise(all);
  $('chart-month').innerHTML = barChart('Spent per month', summary.byMonth, currency, 'svg-month');
  $('chart-category').innerHTML = barChart(
    'Spent per category',
    summary.byCategory,
    currency,
    'svg-category',
  );
  $('chart-balance').innerHTML = lineChart(
    'Balance at each day’s close',
    summary.days,
    currency,
    'svg-balance',
  );
}

// ---- 6. consents ---------------------------------------------------------------------------------------

async function refreshConsents() {
  const answer = await api('GET', `/v1/users/${state.customer.id}/consents?limit=50`);
  await vrpHeadroom(answer.body?.data);
  const body = $('consent-table').tBodies[0];
  body.replaceChildren();
  for (const consent of answer.body?.data ?? []) {
    const row = document.createElement('tr');
    row.dataset.consentId = consent.id;
    const days = consent.expiresAt
      ? Math.ceil((Date.parse(consent.expiresAt) - Date.now()) / 86_400_000)
      : null;
    for (const text of [
      consent.institutionId,
      consent.kind,
      consent.status,
      days === null ? '—' : `${days} days`,
    ]) {
      const cell = document.createElement('td');
      cell.textContent = text;
      row.append(cell);
    }
    const actions = document.createElement('td');
    if (consent.status === 'AUTHORIZED' || consent.status === 'EXPIRED') {
      const revoke = document.createElement('button');
      revoke.textContent = 'Revoke';
      revoke.className = 'revoke';
      revoke.onclick = async () => {
        await api('DELETE', `/v1/consents/${consent.id}`);
        await refreshConsents();
      };
      actions.append(revoke);
    }
    if (consent.kind === 'ACCOUNT' && ['AUTHORIZED', 'EXPIRED'].includes(consent.status)) {
      const again = document.createElement('button');
      again.textContent = 'Re-authorise';
      again.onclick = async () => {
        const answer = await api('POST', `/v1/consents/${consent.id}/reauthorise`, {
          body: { redirectUrl: back('?from=bank') },
        });
        if (answer.status === 201) location.assign(answer.body.data.authorisationUrl);
      };
      actions.append(again);
    }
    row.append(actions);
    body.append(row);
  }
}

// ---- 7. payments ---------------------------------------------------------------------------------------

const PAYEE = {
  name: 'Demo savings',
  accountIdentifications: [
    { type: 'SORT_CODE', identification: '123456' },
    { type: 'ACCOUNT_NUMBER', identification: '12345678' },
  ],
};

async function vrpSetup() {
  const answer = await api('POST', `/v1/users/${state.customer.id}/vrp/consents`, {
    body: {
      institutionId: 'sandbox-payments',
      payee: PAYEE,
      reference: 'Demo sweep',
      controlParameters: {
        maxAmountPerPayment: { amount: $('vrp-max').value, currency: 'GBP' },
        periodicLimits: [
          { frequency: 'MONTHLY', totalMaxAmount: { amount: $('vrp-month').value, currency: 'GBP' } },
        ],
      },
      redirectUrl: back('?from=vrp'),
    },
    key: newKey(),
  });
  if (answer.status !== 201) return show('vrp-status', errorOf(answer), true);
  location.assign(answer.body.data.authorisationUrl);
}

async function vrpPay() {
  if (!state.vrpConsentId) return show('vrp-status', 'Set up sweeping first.', true);
  const answer = await api('POST', `/v1/vrp/consents/${state.vrpConsentId}/payments`, {
    body: { amount: { amount: '10.00', currency: 'GBP' }, reference: 'Demo sweep' },
    key: newKey(),
  });
  if (answer.status === 201) show('vrp-status', `Paid 10.00: ${answer.body.data.status}`);
  else show('vrp-status', `Refused: ${answer.body?.error?.details?.[0]?.issue ?? errorOf(answer)}`, true);
  await Promise.all([refreshPayments(), refreshConsents()]);
}

const PERIOD = {
  DAILY: 'day',
  WEEKLY: 'week',
  FORTNIGHTLY: 'fortnight',
  MONTHLY: 'month',
  HALF_YEARLY: 'half-year',
  YEARLY: 'year',
};
const money = (m) => (m ? formatMinor(Math.round(Number(m.amount) * 100), m.currency) : '—');

/**
 * The customer's newest authorised sweeping consent, and its limits as the BFF checks them: the limit,
 * what was paid and what is left in the current period, from the consent itself (never from the form).
 */
async function vrpHeadroom(consents) {
  const vrp = consents?.find((c) => c.kind === 'VRP_SWEEPING' && c.status === 'AUTHORIZED');
  state.vrpConsentId = vrp?.id ?? null;
  $('vrp-pay-row').hidden = !state.vrpConsentId;
  if (!state.vrpConsentId) return show('vrp-headroom', '');
  const answer = await api('GET', `/v1/vrp/consents/${state.vrpConsentId}`);
  const control = answer.body?.data?.controlParameters;
  if (!control) return show('vrp-headroom', errorOf(answer), true);
  const periods = (control.periodicLimits ?? []).map(
    (l) =>
      `${money(l.limitInCurrentPeriod ?? l.totalMaxAmount)} a ${PERIOD[l.frequency] ?? l.frequency}: ` +
      `paid ${money(l.paidInCurrentPeriod)}, headroom ${money(l.remainingInCurrentPeriod)}`,
  );
  show('vrp-headroom', [`max ${money(control.maxAmountPerPayment)} a payment`, ...periods].join('; '));
}

async function singlePay() {
  const answer = await api('POST', `/v1/users/${state.customer.id}/payments`, {
    body: {
      institutionId: 'sandbox-payments',
      amount: { amount: '12.34', currency: 'GBP' },
      payee: PAYEE,
      reference: 'Demo order',
      redirectUrl: back('?from=payment'),
    },
    key: newKey(),
  });
  if (answer.status !== 201) return show('vrp-status', errorOf(answer), true);
  location.assign(answer.body.data.authorisationUrl);
}

async function refreshPayments() {
  const answer = await api('GET', `/v1/users/${state.customer.id}/payments?limit=20`);
  const body = $('payment-table').tBodies[0];
  body.replaceChildren();
  for (const p of answer.body?.data ?? []) {
    const row = document.createElement('tr');
    row.dataset.paymentId = p.id;
    for (const [text, cls] of [
      [p.kind, ''],
      [formatMinor(Math.round(Number(p.amount.amount) * 100), p.amount.currency), 'num'],
      [p.status, 'payment-status'],
      [p.createdAt.slice(0, 19).replace('T', ' '), ''],
    ]) {
      const cell = document.createElement('td');
      cell.textContent = text;
      if (cls) cell.className = cls;
      row.append(cell);
    }
    body.append(row);
  }
}

// ---- start ------------------------------------------------------------------------------------------------

async function start() {
  state.apiUrl = (await (await fetch('/demo/config')).json()).apiUrl;
  $('customer-use').onclick = () => {
    const select = $('customer-select');
    if (select.value) void useCustomer(select.value, select.selectedOptions[0].text);
  };
  $('customer-create').onclick = async () => {
    const answer = await backend('POST', '/demo/customers', { reference: $('customer-new').value });
    if (answer.status !== 201) return show('customer-current', errorOf(answer), true);
    await loadCustomers();
    await useCustomer(answer.body.data.id, answer.body.data.reference);
  };
  $('institution-search').oninput = () => void loadInstitutions();
  $('institution-country').onchange = () => void loadInstitutions();
  $('institution-select').onchange = () => chosenBank();
  $('connect-redirect').onclick = () => void connectRedirect();
  $('embedded-start').onclick = () => void embeddedStart();
  $('embedded-code-send').onclick = () => void embeddedCode();
  $('tx-apply').onclick = () => void Promise.all([loadTransactions(true), drawPictures()]);
  $('tx-account').onchange = () => void Promise.all([loadTransactions(true), drawPictures()]);
  $('tx-more').onclick = () => void loadTransactions(false);
  $('vrp-setup').onclick = () => void vrpSetup();
  $('vrp-pay').onclick = () => void vrpPay();
  $('single-pay').onclick = () => void singlePay();
  await loadCustomers();
  if (!state.customer || !state.token) return;
  await enter();
  // Back from the bank: say how it went, then follow what the BFF does next.
  const query = new URLSearchParams(location.search);
  if (query.get('from') === 'bank') {
    show('connect-status', `Bank connection: ${query.get('status')}`, query.get('status') !== 'AUTHORIZED');
    await followSyncs();
  } else if (query.get('from') === 'vrp') {
    show('vrp-status', `Sweeping set up: ${query.get('status')}`, query.get('status') !== 'AUTHORIZED');
  } else if (query.get('from') === 'payment') {
    show('vrp-status', `Payment ${query.get('status')}`);
  } else {
    await followSyncs();
  }
}

void start();
