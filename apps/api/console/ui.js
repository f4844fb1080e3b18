// What every screen shares: building elements, the loading, empty and error states, and plain words.
/** An element: `h('a', { href: '#/x' }, 'text', child)`. Attributes named `on…` are listeners. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children.flat().filter((c) => c !== undefined && c !== null));
  return element;
}

/**
 * A form's submit handler: the default navigation stopped, and its submit button disabled while `act`
 * runs, so a second click or Enter does not send the same change twice.
 */
export function submitting(act) {
  return async (event) => {
    event.preventDefault();
    const button = event.currentTarget.querySelector('button[type=submit], button:not([type])');
    if (button) button.disabled = true;
    try {
      await act(event);
    } finally {
      if (button) button.disabled = false;
    }
  };
}

/**
 * A screen's shared state: `fields` (its ids and the containers its parts draw into), its status line
 * (`status`, told with `say`), and `refresh`, which redraws it after a change (`load(screen)`).
 * @template {Record<string, unknown>} F
 * @param {F} fields
 * @param {(screen: any) => unknown} load typed by its module: `Screen`, a ScreenWith of the fields
 * @returns {ScreenWith<F>}
 */
export function screenOf(fields, load) {
  const status = h('p', { role: 'status' });
  const screen = {
    ...fields,
    status,
    say: (good, text) => {
      status.className = good ? 'good' : 'error';
      status.textContent = text;
    },
    refresh: () => load(screen),
  };
  return screen;
}

/**
 * What screenOf adds to a screen's fields.
 * @typedef {object} ScreenState
 * @property {HTMLElement} status
 * @property {(good: boolean, text: string) => void} say
 * @property {() => unknown} refresh
 */

/**
 * A screen: its fields and its state (a module names its own `Screen` so).
 * @template F
 * @typedef {F & ScreenState} ScreenWith
 */

/** A titled part of a screen. */
export const section = (title, ...children) => h('section', {}, h('h2', {}, title), ...children);

/** A table with a caption, its headers, and one row per item; a cell is text or an element. */
export function table(caption, headers, rows) {
  return h(
    'table',
    {},
    h('caption', { class: 'visually-hidden' }, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((text) => h('th', { scope: 'col' }, text)),
      ),
    ),
    h('tbody', {}, rows.map(tableRow)),
  );
}

/** One row of `table`, for a screen that redraws a single row in place. */
export function tableRow(cells) {
  return h(
    'tr',
    {},
    cells.map((cell) => h('td', {}, cell)),
  );
}

/** What went wrong, in the api's own words (an ApiError or the SDK's BffError), with its tracing id. */
export function errorText(error) {
  if (typeof error?.status !== 'number' || typeof error?.code !== 'string')
    return `Something went wrong in this page: ${error?.message ?? error}`;
  return `${error.message}${error.tracingId ? ` (tracing id ${error.tracingId})` : ''}`;
}

/**
 * An element index.html always has; a missing one is a broken page, said at once.
 * @param {string} selector
 * @returns {HTMLElement}
 */
export function element(selector) {
  const found = document.querySelector(selector);
  if (!(found instanceof HTMLElement)) throw new Error(`index.html has no ${selector}`);
  return found;
}

/** Says something to screen readers without moving the focus. */
export function announce(text) {
  element('#announce').textContent = text;
}

/**
 * What screen readers hear of loading, through the one live region: "Loading…" when the first of a
 * screen's loads starts, then, once the last ends, "Loaded." or how many parts failed (each failure is
 * also an alert where it happened). One word for all a screen's loads rather than one each.
 */
const loads = { running: 0, failed: 0 };
function loadStarted() {
  if (loads.running++ === 0) {
    loads.failed = 0;
    announce('Loading…');
  }
}
function loadEnded(ok) {
  if (!ok) loads.failed += 1;
  if (--loads.running > 0) return;
  const { failed } = loads;
  announce(
    failed === 0
      ? 'Loaded.'
      : `Loaded, but ${failed === 1 ? 'one part' : `${failed} parts`} could not be: the page says why.`,
  );
}

/**
 * Fills `container` with what `load` answers, rendered by `render`: "Loading…" meanwhile, `empty` when
 * the answer is an empty list, and the error in words when it fails.
 * @template T
 * @param {HTMLElement} container
 * @param {{ what: string, load: () => Promise<T>, render: (answer: T) => any, empty?: string }} part
 */
export async function loadInto(container, { what, load, render, empty }) {
  container.replaceChildren(h('p', { class: 'state' }, `Loading ${what}…`));
  container.setAttribute('aria-busy', 'true');
  loadStarted();
  let ok = false;
  try {
    const answer = await load();
    const nothing = Array.isArray(answer) && answer.length === 0;
    container.replaceChildren(...[nothing ? h('p', { class: 'state' }, empty) : render(answer)].flat());
    ok = true;
  } catch (error) {
    container.replaceChildren(
      h('p', { class: 'error', role: 'alert' }, `Could not load ${what}. ${errorText(error)}`),
    );
  } finally {
    container.removeAttribute('aria-busy');
    loadEnded(ok);
  }
}

/**
 * A list the api pages (`load(cursor)` answers `{ items, nextCursor }`) as one table in `container`: the
 * first page with `loadInto`'s states, then a "Show more" button while there is a next page. A further
 * page's rows join the same table and the first of them takes the focus, so a keyboard user goes on
 * reading where the new rows start; a failure says so next to the button, which stays to try again.
 * @template T
 * @param {HTMLElement} container
 * @param {{
 *   what: string,
 *   load: (cursor: string | undefined) => Promise<{ items: T[], nextCursor?: string | null }>,
 *   caption: string,
 *   headers: string[],
 *   row: (item: T) => any[],
 *   empty: string,
 * }} list
 */
export function pagedInto(container, { what, load, caption, headers, row, empty }) {
  return loadInto(container, {
    what,
    load: () => load(undefined),
    render: (first) => {
      if (first.items.length === 0) return h('p', { class: 'state' }, empty);
      const list = table(caption, headers, first.items.map(row));
      const footer = h('div', { class: 'more' });
      let cursor = first.nextCursor;
      let shown = first.items.length;
      const problem = h('p', { class: 'error', role: 'alert' });
      const button = h('button', { type: 'button', class: 'secondary' }, 'Show more');
      const end = () =>
        footer.replaceChildren(
          cursor
            ? h('p', { class: 'row' }, button, h('span', { class: 'muted' }, `${shown} shown so far.`))
            : h('p', { class: 'muted' }, `That is all of them: ${shown}.`),
          problem,
        );
      button.addEventListener('click', async () => {
        button.disabled = true;
        button.textContent = 'Loading more…';
        problem.textContent = '';
        container.setAttribute('aria-busy', 'true');
        announce('Loading more…');
        try {
          const next = await load(cursor ?? undefined);
          const rows = next.items.map((item) => tableRow(row(item)));
          list.tBodies[0].append(...rows);
          cursor = next.nextCursor;
          shown += rows.length;
          end();
          announce(`${rows.length} more shown, ${shown} in all.`);
          if (rows[0]) {
            rows[0].setAttribute('tabindex', '-1');
            rows[0].focus();
          }
        } catch (error) {
          problem.textContent = `Could not load more of ${what}. ${errorText(error)}`;
          announce(problem.textContent);
        } finally {
          button.disabled = false;
          button.textContent = 'Show more';
          container.removeAttribute('aria-busy');
        }
      });
      end();
      return [list, footer];
    },
  });
}

/** A moment as people read it, or a dash. */
export function when(iso) {
  if (!iso) return '—';
  return new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

const PLAIN = {
  consent: {
    AWAITING_AUTHORIZATION: 'Waiting for the customer at the bank',
    AWAITING_SCA_METHOD: 'Waiting for the customer to choose how to confirm',
    AWAITING_SCA_CODE: "Waiting for the customer's confirmation code",
    AWAITING_RE_AUTHORIZATION: 'Waiting for the customer to renew it at the bank',
    AUTHORIZED: 'Authorised',
    REJECTED: 'Refused by the customer',
    REVOKED: 'Withdrawn',
    EXPIRED: 'Expired',
    FAILED: 'Failed',
    CONSUMED: 'Used (its one payment is made)',
    INVALID: 'No longer valid at the bank',
  },
  accountSync: {
    pending: 'Waiting for its first sync',
    syncing: 'Syncing now',
    synced: 'Up to date',
    failed: 'Last sync failed',
    stopped: 'Stopped: the consent no longer allows it',
  },
  run: { queued: 'Waiting to start', running: 'Running', succeeded: 'Finished', failed: 'Failed' },
  trigger: { initial: 'First sync', scheduled: 'Scheduled', manual: 'Asked for' },
  transaction: { BOOKED: 'Booked', PENDING: 'Pending' },
  delivery: { PENDING: 'Not delivered yet', SUCCEEDED: 'Delivered', FAILED: 'Failed for good' },
  eventType: {
    'consent.authorized': 'A consent was authorised',
    'consent.failed': 'An authorisation did not succeed',
    'consent.expiring': 'A consent expires soon',
    'consent.reauthorisation_required': 'A re-authorisation is needed',
    'consent.reauthorisation_not_extended': 'A re-authorisation did not extend the consent',
    'consent.expired': 'A consent expired',
    'consent.revoked': 'A consent was withdrawn',
    'consent.synced': "A consent's accounts finished their first sync",
    'sync.succeeded': "An account's sync finished",
    'sync.failed': "An account's sync failed",
    'transactions.changed': 'Transactions changed',
    'payment.completed': 'A payment completed',
    'payment.failed': 'A payment failed',
    'endpoint.test': 'A test event',
  },
};

/** The event types an endpoint can take (the api's names, in the api's order); `endpoint.test` is no choice. */
export const EVENT_TYPES = /** @type {import('./merchant-sdk.js').EventEndpoint['types']} */ (
  Object.keys(PLAIN.eventType).filter((type) => type !== 'endpoint.test')
);

/** An API value in plain words; an unknown one as the API's own name, marked as such. */
export function plain(kind, value) {
  return PLAIN[kind][value] ?? `${value} (as the api names it)`;
}
