// The console's shell: who is signed in, the navigation, and which screen the address (#/…) shows.
import { bff, operator } from './api.js';
import { bankHealthScreen, operatorBankHealthScreen } from './bank-health.js';
import { connectFunnelScreen, operatorConnectFunnelScreen } from './connect-funnel.js';
import { insightsScreen, operatorConversionScreen } from './conversion.js';
import { loadEventTypes } from './event-types.js';
import { accountScreen, customerScreen, customersScreen } from './merchant-customers.js';
import { deliveryScreen } from './merchant-delivery.js';
import { endpointScreen } from './merchant-endpoint.js';
import { endpointsScreen } from './merchant-endpoints.js';
import { eventsScreen } from './merchant-events.js';
import { keysScreen } from './merchant-keys.js';
import { lookupScreen } from './merchant-lookup.js';
import { originsScreen } from './merchant-origins.js';
import { auditScreen } from './operator-audit.js';
import { merchantScreen } from './operator-merchant.js';
import { merchantsScreen } from './operator-merchants.js';
import { overviewScreen } from './operator-overview.js';
import { parkedScreen } from './operator-payments.js';
import { signInScreen } from './sign-in.js';
import { element, h } from './ui.js';

/**
 * Only who is signed in (`merchant` or `operator`) is kept in the page, to know which screens to offer
 * without asking the api first; the credential itself is in an HttpOnly cookie no script can read.
 */
const KIND = 'console.kind';

/** @typedef {import('./operator-client').Schema<'ConsoleSessionOutput'>['kind']} Kind */
/** @typedef {(main: HTMLElement, ...ids: string[]) => unknown} Screen drawn into `main`, given the ids */

/**
 * Each kind's screens: the address each answers (its groups are the screen's ids) and the screen.
 * @type {Record<Kind, [RegExp, Screen][]>}
 */
const SCREENS = {
  merchant: [
    [/^#\/keys$/, keysScreen],
    [/^#\/origins$/, originsScreen],
    [/^#\/customers$/, customersScreen],
    [/^#\/customers\/([\w-]+)$/, customerScreen],
    [/^#\/accounts\/([\w-]+)$/, accountScreen],
    [/^#\/event-endpoints$/, endpointsScreen],
    [/^#\/event-endpoints\/([\w-]+)$/, endpointScreen],
    [/^#\/event-endpoints\/([\w-]+)\/deliveries\/([\w-]+)$/, deliveryScreen],
    [/^#\/events$/, eventsScreen],
    [/^#\/lookup$/, lookupScreen],
    [/^#\/insights$/, insightsScreen],
    [/^#\/connect-funnel$/, connectFunnelScreen],
    [/^#\/bank-health$/, bankHealthScreen],
  ],
  operator: [
    [/^#\/merchants$/, merchantsScreen],
    [/^#\/merchants\/([\w-]+)$/, merchantScreen],
    [/^#\/audit$/, auditScreen],
    [/^#\/audit\/([\w-]+)$/, auditScreen],
    [/^#\/parked$/, parkedScreen],
    [/^#\/overview$/, overviewScreen],
    [/^#\/conversion(?:\/([\w-]+))?$/, operatorConversionScreen],
    [/^#\/connect-funnel(?:\/([\w-]+))?$/, operatorConnectFunnelScreen],
    [/^#\/bank-health(?:\/([\w-]+))?$/, operatorBankHealthScreen],
  ],
};
/** @type {Record<Kind, [href: string, text: string][]>} */
const NAV = {
  merchant: [
    ['#/keys', 'API keys'],
    ['#/origins', 'Frontend origins'],
    ['#/customers', 'Customers'],
    ['#/event-endpoints', 'Event endpoints'],
    ['#/events', 'Events'],
    ['#/lookup', 'Look up a tracing id'],
    ['#/insights', 'Conversion'],
    ['#/connect-funnel', 'Connect funnel'],
    ['#/bank-health', 'Bank health'],
  ],
  operator: [
    ['#/merchants', 'Merchants'],
    ['#/audit', 'Audit log'],
    ['#/parked', 'Parked payments'],
    ['#/overview', 'Overview'],
    ['#/conversion', 'Conversion'],
    ['#/connect-funnel', 'Connect funnel'],
    ['#/bank-health', 'Bank health'],
  ],
};

const main = element('#screen');
const nav = element('#nav');
const who = element('#who');
const signOut = element('#sign-out');

/** @param {Kind} kind */
function signedIn(kind) {
  sessionStorage.setItem(KIND, kind);
  // Setting another address shows its screen (hashchange); the same one would not.
  if (location.hash === NAV[kind][0][0]) void show();
  else location.hash = NAV[kind][0][0];
}

/** @param {Kind} kind */
async function showWho(kind) {
  if (kind === 'operator') {
    who.textContent = 'Signed in as the operator';
    return;
  }
  who.textContent = 'Signed in as a merchant';
  const merchant = await bff.merchant.get().catch(() => undefined);
  if (merchant) who.textContent = `Signed in for ${merchant.name}`;
}

/**
 * The screen the address names, with the ids it holds; undefined when no screen of `kind` answers it.
 * @param {Kind} kind
 */
function routeOf(kind) {
  for (const [pattern, screen] of SCREENS[kind]) {
    const match = pattern.exec(location.hash);
    if (match) return { screen, ids: match.slice(1) };
  }
  return undefined;
}

/** @param {string} [message] what the sign-in says first */
async function show(message) {
  // Only signedIn writes it; anything else (an older console's value) reads as signed out.
  const stored = sessionStorage.getItem(KIND);
  const kind = stored === 'merchant' || stored === 'operator' ? stored : null;
  nav.hidden = signOut.hidden = !kind;
  if (!kind) {
    who.textContent = '';
    main.replaceChildren();
    signInScreen(main, message, signedIn);
  } else {
    const route = routeOf(kind);
    if (!route) {
      location.hash = NAV[kind][0][0];
      return;
    }
    nav.replaceChildren(
      ...NAV[kind].map(([href, text]) =>
        h('a', { href, 'aria-current': location.hash.startsWith(href) ? 'page' : undefined }, text),
      ),
    );
    if (!who.textContent) void showWho(kind);
    // The merchant's screens name event types in the api's words, read once before the first is shown.
    if (kind === 'merchant') await loadEventTypes();
    main.replaceChildren();
    route.screen(main, ...route.ids);
  }
  // A new screen: its heading takes the focus, so keyboard and screen-reader users start from its top.
  focusHeading();
}

/** The screen's heading takes the focus (and is read); without one, the screen itself. */
function focusHeading() {
  const heading = main.querySelector('h1');
  heading?.setAttribute('tabindex', '-1');
  (heading ?? main).focus();
}

// The skip link moves the focus without touching the address: `#screen` would be read as a screen's
// address, and the hashchange would show the first screen instead.
element('.skip').addEventListener('click', (event) => {
  event.preventDefault();
  focusHeading();
});

signOut.addEventListener('click', async () => {
  await operator.delete('/console/session').catch(() => undefined);
  signedOut('You are signed out.');
});
window.addEventListener('console-session-ended', () => signedOut('Your session has ended. Sign in again.'));

/** @param {string} message */
function signedOut(message) {
  sessionStorage.removeItem(KIND);
  // Without a hashchange, which would show the sign-in again without the message.
  history.replaceState(null, '', location.pathname);
  void show(message);
}
window.addEventListener('hashchange', () => void show());
void show();
