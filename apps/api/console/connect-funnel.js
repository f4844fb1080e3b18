// Where a merchant's users drop off in `<bff-connect>` before a consent exists, bank by bank
// (GET /v1/insights/connect-funnel), or every merchant's, or one's, on the operator's side
// (GET /admin/insights/connect-funnel): bars to take in at a glance, and the same figures as tables, which
// is what screen readers are given (the bars are hidden from them). Read only.
import { bff, operator } from './api.js';
import { loadInto } from './loading.js';
import { operatorScope } from './operator-scope.js';
import { h, table } from './ui.js';

/** @typedef {import('./merchant-sdk.js').ConnectFunnel} ConnectFunnel */
/** @typedef {ConnectFunnel['institutions'][number]} Row */
/** @typedef {Row['errors'][number]['step']} Step */

const DAY = 24 * 60 * 60 * 1000;
const RANGES = [7, 30, 90];
/** The steps an attempt reaches, in the funnel's order. */
const STEPS = /** @type {const} */ ([
  ['opened', 'Opened'],
  ['searched', 'Searched'],
  ['chose', 'Chose a bank'],
  ['sentToBank', 'Sent to the bank'],
  ['returned', 'Came back'],
]);
/** How attempts ended, in the order the bars stack them (each attempt under one). */
const ENDS = /** @type {const} */ ([
  ['connected', 'Connected', 'connected'],
  ['declined', 'Declined', 'declined'],
  ['cancelled', 'Cancelled', 'cancelled'],
  ['failed', 'Failed', 'failed'],
  ['abandoned', 'Abandoned', 'abandoned'],
  ['inProgress', 'In progress', 'in-progress'],
]);
/** Each step's words, by its name in the api. */
const STEP_WORDS = /** @type {Record<Step, string>} */ (Object.fromEntries(STEPS));

/** @param {Row} row */
const bankOf = (row) => row.institutionId ?? 'No bank chosen';

function funnelView() {
  return {
    days: h(
      'select',
      { id: 'connect-funnel-days', name: 'connect-funnel-days' },
      RANGES.map((d) => h('option', { value: d, selected: d === 30 }, `The last ${d} days`)),
    ),
    figures: h('div', { id: 'connect-funnel' }),
  };
}

/**
 * A share of the widest bank's attempts, as a width (set through the CSSOM: the CSP allows no style
 * attribute).
 * @param {string} className
 * @param {number} share from 0 to 1
 */
function segment(className, share) {
  const part = h('span', { class: `segment ${className}` });
  part.style.width = `${(share * 100).toFixed(2)}%`;
  return part;
}

/**
 * One bank: a bar a step, each the attempts that reached it, then a bar of how they ended, all on the
 * scale of the bank with the most attempts, each with its figure beside it.
 * @param {Row} row
 * @param {number} most
 */
const bankBars = (row, most) =>
  h(
    'div',
    { class: 'bank' },
    h('span', { class: 'bank-name' }, bankOf(row)),
    h(
      'span',
      { class: 'bars' },
      STEPS.map(([step, text]) =>
        h(
          'span',
          { class: 'measure' },
          h('span', { class: 'bar' }, segment('step', row[step] / most)),
          h('span', {}, `${text}: ${row[step]}`),
        ),
      ),
      h(
        'span',
        { class: 'measure' },
        h(
          'span',
          { class: 'bar' },
          ENDS.map(([end, , className]) => segment(className, row[end] / most)),
        ),
        h('span', {}, `Connected: ${row.connected} of ${row.opened}`),
      ),
    ),
  );

/** @param {Row[]} rows */
const chart = (rows) => {
  const most = Math.max(1, ...rows.map((row) => row.opened));
  return h(
    'div',
    { class: 'chart funnel', 'aria-hidden': 'true' },
    h(
      'p',
      { class: 'legend' },
      [['step', 'Reached the step'], ...ENDS.map(([, text, className]) => [className, text])].map(
        ([className, text]) => h('span', {}, h('span', { class: `swatch segment ${className}` }), text),
      ),
    ),
    rows.map((row) => bankBars(row, most)),
  );
};

const HEADERS = ['Bank', ...STEPS.map(([, text]) => text), ...ENDS.map(([, text]) => text)];

/** @param {Row} row */
const countsRow = (row) => [bankOf(row), ...[...STEPS, ...ENDS].map(([field]) => String(row[field]))];

/**
 * Each bank's errors, a row a step and code.
 * @param {Row[]} rows
 */
const errorRows = (rows) =>
  rows.flatMap((row) =>
    row.errors.map((error) => [
      bankOf(row),
      STEP_WORDS[error.step] ?? error.step,
      h('code', {}, error.reason),
      String(error.attempts),
    ]),
  );

/** @param {Row[]} rows */
function errorsTable(rows) {
  const errors = errorRows(rows);
  if (errors.length === 0) return [];
  return [
    h('h2', {}, 'Errors met, by step'),
    h(
      'p',
      {},
      'The last error each attempt met, whether it ended failed or the customer got past it, under the furthest step it had reached.',
    ),
    table('Errors met, by step', ['Bank', 'Step', 'Code', 'Attempts'], errors),
  ];
}

/**
 * @typedef {object} Source whose attempts the screen shows
 * @property {(from: string) => Promise<Row[]>} load the banks' counts from `from` (a UTC day) on
 * @property {string} whose the customers who tried to connect, in words
 */

/**
 * @param {ReturnType<typeof funnelView>} view
 * @param {Source} source
 */
function load(view, source) {
  const days = Number(view.days.value);
  const from = new Date(Date.now() - (days - 1) * DAY).toISOString().slice(0, 10);
  return loadInto(view.figures, {
    what: 'the connect funnel',
    load: () => source.load(from),
    empty: `No customer opened <bff-connect> in the last ${days} days.`,
    render: (rows) => [
      chart(rows),
      table(`Attempts opened in the last ${days} days, by bank`, HEADERS, rows.map(countsRow)),
      ...errorsTable(rows),
    ],
  });
}

/**
 * @param {HTMLElement} main
 * @param {Source} source
 * @param {Node[]} [scope] what says whose figures these are, beneath the heading
 */
function funnelScreen(main, source, scope = []) {
  const view = funnelView();
  view.days.addEventListener('change', () => void load(view, source));
  main.append(
    h('h1', {}, 'Connect funnel'),
    ...scope,
    h(
      'p',
      {},
      `Where ${source.whose} drop off in <bff-connect>, before any consent exists, bank by bank: the steps each attempt reached, and how it ended. An attempt is abandoned when the page closed first, or nothing was heard of it for over an hour.`,
    ),
    h('label', { for: 'connect-funnel-days' }, 'Attempts opened in'),
    h('div', { class: 'row' }, view.days),
    view.figures,
  );
  void load(view, source);
}

/** @param {HTMLElement} main */
export function connectFunnelScreen(main) {
  funnelScreen(main, {
    whose: 'your customers',
    load: async (from) => (await bff.insights.connectFunnel({ from })).institutions,
  });
}

/**
 * Every merchant's attempts, or one merchant's (`#/connect-funnel/<id>`, linked from its screen).
 * @param {HTMLElement} main
 * @param {string} [merchantId]
 */
export function operatorConnectFunnelScreen(main, merchantId) {
  const query = merchantId ? { merchantId } : {};
  funnelScreen(
    main,
    {
      whose: merchantId ? 'this merchant’s customers' : 'every merchant’s customers',
      load: async (from) =>
        (await operator.get('/admin/insights/connect-funnel', { query: { ...query, from } })).data
          .institutions,
    },
    operatorScope('#/connect-funnel', merchantId, "Every merchant's attempts"),
  );
}
