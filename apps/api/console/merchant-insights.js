// Where a merchant's users drop off, bank by bank (GET /v1/insights/conversion): bars to take in at a
// glance, and the same figures as a table, which is what screen readers are given (the bars are hidden
// from them). Read only.
import { bff } from './api.js';
import { loadInto } from './loading.js';
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

/** @param {ReturnType<typeof insightsView>} view */
function load(view) {
  const days = Number(view.days.value);
  const from = new Date(Date.now() - (days - 1) * DAY).toISOString().slice(0, 10);
  return loadInto(view.figures, {
    what: 'the conversion',
    load: async () => (await bff.insights.conversion({ from })).institutions,
    empty: `No customer started connecting a bank in the last ${days} days.`,
    render: (banks) => [
      chart(banks),
      table(`Connections started in the last ${days} days, by bank`, HEADERS, banks.map(countsRow)),
    ],
  });
}

/** @param {HTMLElement} main */
export function insightsScreen(main) {
  const view = insightsView();
  view.days.addEventListener('change', () => void load(view));
  main.append(
    h('h1', {}, 'Connection conversion'),
    h(
      'p',
      {},
      'Where your customers drop off, bank by bank: the bank connections they started, and what became of each. A connection is abandoned when the customer never came back from the bank (settled about an hour after their last step).',
    ),
    h('label', { for: 'conversion-days' }, 'Connections started in'),
    h('div', { class: 'row' }, view.days),
    view.figures,
  );
  void load(view);
}
