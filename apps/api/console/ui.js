// What every screen shares: building elements, the error state, and plain words (loading.js: the loading
// and empty states).
/**
 * What an element holds: text, an element, nothing (null or undefined, left out), or a list of these.
 * @typedef {Node | string | null | undefined} Child
 * @typedef {Child | readonly Child[]} Children
 */

/**
 * What a part of a screen shows once loaded: an element or text, or several.
 * @typedef {Node | string | readonly (Node | string)[]} Shown
 */

/**
 * An element's attributes, `class` and the listeners (`on…`, which take the element as `currentTarget`)
 * among them; a value of undefined, null or false leaves the attribute out, true sets it empty.
 * @template {HTMLElement} E
 * @typedef {{
 *   [name: string]: unknown,
 *   class?: string,
 *   onclick?: (event: MouseEvent & { currentTarget: E }) => unknown,
 *   onsubmit?: (event: SubmitEvent & { currentTarget: E }) => unknown,
 *   oninput?: (event: Event & { currentTarget: E }) => unknown,
 *   onchange?: (event: Event & { currentTarget: E }) => unknown,
 *   ontoggle?: (event: ToggleEvent & { currentTarget: E }) => unknown,
 * }} Attributes
 */

/**
 * An element: `h('a', { href: '#/x' }, 'text', child)`. Attributes named `on…` are listeners.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes<HTMLElementTagNameMap[K]>} [attributes]
 * @param {...Children} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    else if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children.flat().filter((c) => c !== undefined && c !== null));
  return element;
}

/**
 * A form's submit handler: the default navigation stopped, and its submit button disabled while `act`
 * runs, so a second click or Enter does not send the same change twice.
 * @param {(event: SubmitEvent) => unknown} act
 * @returns {(event: SubmitEvent & { currentTarget: HTMLFormElement }) => Promise<void>}
 */
export function submitting(act) {
  return async (event) => {
    event.preventDefault();
    /** @type {HTMLButtonElement | null} */
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
 * @param {(screen: ScreenWith<F>) => unknown} load typed by its module: `Screen`, a ScreenWith of the fields
 * @returns {ScreenWith<F>}
 */
export function screenOf(fields, load) {
  const status = h('p', { role: 'status' });
  /** @type {ScreenWith<F>} */
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

/**
 * A titled part of a screen.
 * @param {string} title
 * @param {...Children} children
 */
export const section = (title, ...children) => h('section', {}, h('h2', {}, title), ...children);

/**
 * A table with a caption, its headers, and one row per item; a cell is text or an element.
 * @param {string} caption
 * @param {string[]} headers
 * @param {Children[][]} rows
 */
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

/**
 * One row of `table`, for a screen that redraws a single row in place.
 * @param {Children[]} cells
 */
export function tableRow(cells) {
  return h(
    'tr',
    {},
    cells.map((cell) => h('td', {}, cell)),
  );
}

/**
 * An item's rows in a table of `columns`: its cells, then, when `below` is given, a row of what belongs
 * to it across the table's whole width (disclosures whose own tables would not fit a cell).
 * @template T
 * @param {number} columns
 * @param {(item: T) => Children[]} row
 * @param {((item: T) => Children) | undefined} below
 * @returns {(item: T) => HTMLTableRowElement[]}
 */
export const rowsOf = (columns, row, below) => (item) => [
  tableRow(row(item)),
  ...(below ? [h('tr', { class: 'below' }, h('td', { colspan: columns }, below(item)))] : []),
];

/**
 * `table` of items, each drawn by `row`, with `below` under it when given (`rowsOf`).
 * @template T
 * @param {string} caption
 * @param {string[]} headers
 * @param {readonly T[]} items
 * @param {(item: T) => Children[]} row
 * @param {(item: T) => Children} [below]
 */
export function itemTable(caption, headers, items, row, below) {
  const list = table(caption, headers, []);
  list.tBodies[0].append(...items.flatMap(rowsOf(headers.length, row, below)));
  return list;
}

/**
 * What went wrong, in the api's own words (an ApiError or the SDK's BffError), with its tracing id.
 * @param {unknown} thrown whatever was thrown: an api's error has a numeric `status` and a `code`
 */
export function errorText(thrown) {
  const error =
    /** @type {{ status?: unknown, code?: unknown, message?: string, tracingId?: string } | null | undefined} */ (
      thrown
    );
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

/**
 * Says something to screen readers without moving the focus.
 * @param {string} text
 */
export function announce(text) {
  element('#announce').textContent = text;
}

/**
 * To the second, where several moments often fall within one minute (a consent's statuses, a run's calls).
 * @param {string} iso
 */
export const toTheSecond = (iso) =>
  new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });

/**
 * A moment as people read it, or a dash.
 * @param {string | null | undefined} iso
 */
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
  trigger: {
    initial: 'First sync',
    reconnected: 'After reconnecting: from the stored transactions on',
    scheduled: 'Scheduled',
    manual: 'Asked for',
  },
  transaction: { BOOKED: 'Booked', PENDING: 'Pending' },
  delivery: { PENDING: 'Not delivered yet', SUCCEEDED: 'Delivered', FAILED: 'Failed for good' },
};

/**
 * An API value in plain words; an unknown one as the API's own name, marked as such.
 * @param {keyof typeof PLAIN} kind
 * @param {string} value
 */
export function plain(kind, value) {
  /** @type {Partial<Record<string, string>>} */
  const words = PLAIN[kind];
  return words[value] ?? `${value} (as the api names it)`;
}
