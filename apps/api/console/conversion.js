// Where a merchant's users drop off, bank by bank (GET /v1/insights/conversion), or every merchant's, or
// one's, on the operator's side (GET /admin/insights/conversion): bars to take in at a glance, and the
// same figures as a table, which is what screen readers are given (the bars are hidden from them). Read
// only.
import { bff, operator } from './api.js';
import { loadInto } from './loading.js';
import { operatorScope } from './operator-scope.js';
import { h, table } from './ui.js';

/** @typedef {import('./merchant-sdk.js').Conversion} Conversion */
/** @typedef {Conversion['institutions'][number]} Counts */

const DAY = 24 * 60 * 60 * 1000;
const RANGES = [7, 30, 90];
/** What became of the consents started, in the order the bars stack them. */
const OUTCOMES = /** @type {const} */ ([
  ['authorised', 'Authorised'],
  ['pending', 'Pending'],
  ['rejected', 'Rejected'],
  ['abandoned', 'Abandoned'],
  ['failed', 'Failed'],
]);

function insightsView() {
  return {
    days: h(
      'select',
      { id: 'conversion-days', name: 'conversion-days' },
      RANGES.map((d) => h('option', { value: d, selected: d === 30 }, `The last ${d} days`)),
    ),
    figures: h('div', { id: 'conversion' }),
  };
}

/** @param {number | null} seconds */
function duration(seconds) {
  if (seconds === null) return '—';
  if (seconds < 120) return `${seconds} s`;
  return seconds < 7_200 ? `${Math.round(seconds / 60)} min` : `${Math.round(seconds / 3_600)} h`;
}

/**
 * A share of the widest bank's consents, as a width (set through the CSSOM: the CSP allows no style
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
 * One bank: its consents started as a bar of their outcomes, and beneath it those that reached a first
 * sync, both on the scale of the bank with the most consents.
 * @param {Counts} counts
 * @param {number} most
 */
const bankBars = (counts, most) =>
  h(
    'div',
    { class: 'bank' },
    h('span', { class: 'bank-name' }, counts.institutionId),
    h(
      'span',
      { class: 'bars' },
      h(
        'span',
        { class: 'bar' },
        OUTCOMES.map(([outcome]) => segment(outcome, counts[outcome] / most)),
      ),
      h('span', { class: 'bar thin' }, segment('first-synced', counts.firstSynced / most)),
    ),
  );

/** @param {Counts[]} banks */
const chart = (banks) => {
  const most = Math.max(...banks.map((b) => b.started));
  return h(
    'div',
    { class: 'chart', 'aria-hidden': 'true' },
    h(
      'p',
      { class: 'legend' },
      [...OUTCOMES, ['first-synced', 'First synced (beneath)']].map(([outcome, text]) =>
        h('span', {}, h('span', { class: `swatch segment ${outcome}` }), text),
      ),
    ),
    banks.map((bank) => bankBars(bank, most)),
  );
};

/** @param {Counts} c */
const countsRow = (c) => [
  c.institutionId,
  ...[c.started, ...OUTCOMES.map(([outcome]) => c[outcome]), c.firstSynced].map(String),
  duration(c.medianSecondsToAuthorised),
  duration(c.medianSecondsToFirstSync),
];

const HEADERS = [
  'Bank',
  'Started',
  ...OUTCOMES.map(([, text]) => text),
  'First synced',
  'Median to authorised',
  'Median to first sync',
];

/**
 * @typedef {object} Source whose connections the screen shows
 * @property {(from: string) => Promise<Counts[]>} load the banks' counts from `from` (a UTC day) on
 * @property {string} whose the customers who connected, in words
 */

/**
 * @param {ReturnType<typeof insightsView>} view
 * @param {Source} source
 */
function load(view, source) {
  const days = Number(view.days.value);
  const from = new Date(Date.now() - (days - 1) * DAY).toISOString().slice(0, 10);
  return loadInto(view.figures, {
    what: 'the conversion',
    load: () => source.load(from),
    empty: `No customer started connecting a bank in the last ${days} days.`,
    render: (banks) => [
      chart(banks),
      table(`Connections started in the last ${days} days, by bank`, HEADERS, banks.map(countsRow)),
    ],
  });
}

/**
 * @param {HTMLElement} main
 * @param {Source} source
 * @param {Node[]} [scope] what says whose figures these are, beneath the heading
 */
function conversionScreen(main, source, scope = []) {
  const view = insightsView();
  view.days.addEventListener('change', () => void load(view, source));
  main.append(
    h('h1', {}, 'Connection conversion'),
    ...scope,
    h(
      'p',
      {},
      `Where ${source.whose} drop off, bank by bank: the bank connections they started, and what became of each. A connection is abandoned when the customer never came back from the bank (settled about an hour after their last step).`,
    ),
    h('label', { for: 'conversion-days' }, 'Connections started in'),
    h('div', { class: 'row' }, view.days),
    view.figures,
  );
  void load(view, source);
}

/** @param {HTMLElement} main */
export function insightsScreen(main) {
  conversionScreen(main, {
    whose: 'your customers',
    load: async (from) => (await bff.insights.conversion({ from })).institutions,
  });
}

/**
 * Every merchant's connections, or one merchant's (`#/conversion/<id>`, linked from its screen).
 * @param {HTMLElement} main
 * @param {string} [merchantId]
 */
export function operatorConversionScreen(main, merchantId) {
  const query = merchantId ? { merchantId } : {};
  conversionScreen(
    main,
    {
      whose: merchantId ? 'this merchant’s customers' : 'every merchant’s customers',
      load: async (from) =>
        (await operator.get('/admin/insights/conversion', { query: { ...query, from } })).data.institutions,
    },
    operatorScope('#/conversion', merchantId, "Every merchant's connections"),
  );
}
