// How each bank answered the calls made for a merchant's customers (GET /v1/insights/institution-health),
// or for every merchant's, or one's, on the operator's side (GET /admin/insights/institution-health):
// bars of its error rate and slowest answers to take in at a glance, and the same figures as a table,
// which is what screen readers are given (the bars are hidden from them). Read only.
import { bff, operator } from './api.js';
import { loadInto } from './loading.js';
import { operatorScope } from './operator-scope.js';
import { h, table } from './ui.js';

/** @typedef {import('./merchant-sdk.js').InstitutionHealth} Health */
/** @typedef {Health['institutions'][number]} Figures */

const DAY = 24 * 60 * 60 * 1000;
/**
 * What fills a bar, unless a bank is worse: a tenth of calls failing, a second's latency. Scaled to the
 * worst bank alone, a healthy bank's 0.5% would fill its bar as a failing one's 50% does.
 */
const FULL = { rate: 0.1, ms: 1000 };
const RANGES = /** @type {const} */ ([
  [1, 'Today (UTC)'],
  [7, 'The last 7 days'],
  [30, 'The last 30 days'],
]);

function healthView() {
  return {
    days: h(
      'select',
      { id: 'bank-health-days', name: 'bank-health-days' },
      RANGES.map(([d, text]) => h('option', { value: d, selected: d === 7 }, text)),
    ),
    figures: h('div', { id: 'bank-health' }),
  };
}

/** @param {number} rate errors / calls */
const percent = (rate) => `${(rate * 100).toFixed(1)}%`;

/** @param {number} ms */
const latency = (ms) => (ms < 10_000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);

/**
 * A bar a share of the widest wide, with its figure beside it (the width set through the CSSOM: the CSP
 * allows no style attribute).
 * @param {string} className
 * @param {number} share from 0 to 1
 * @param {string} figure
 */
function bar(className, share, figure) {
  const part = h('span', { class: `segment ${className}` });
  part.style.width = `${(share * 100).toFixed(2)}%`;
  return h('span', { class: 'measure' }, h('span', { class: 'bar' }, part), h('span', {}, figure));
}

/**
 * One bank: its error rate on the scale of the bank failing most, its p95 latency beneath on the scale
 * of the slowest (each at least FULL).
 * @param {Figures} bank
 * @param {typeof FULL} worst
 */
const bankBars = (bank, worst) =>
  h(
    'div',
    { class: 'bank' },
    h('span', { class: 'bank-name' }, bank.institutionId),
    h(
      'span',
      { class: 'bars' },
      bar('error-rate', bank.errorRate / worst.rate, percent(bank.errorRate)),
      bar('latency', bank.p95DurationMs / worst.ms, latency(bank.p95DurationMs)),
    ),
  );

/** @param {Figures[]} banks */
const chart = (banks) => {
  const worst = {
    rate: Math.max(FULL.rate, ...banks.map((b) => b.errorRate)),
    ms: Math.max(FULL.ms, ...banks.map((b) => b.p95DurationMs)),
  };
  return h(
    'div',
    { class: 'chart', 'aria-hidden': 'true' },
    h(
      'p',
      { class: 'legend' },
      [
        ['error-rate', 'Error rate'],
        ['latency', '95th percentile latency (beneath)'],
      ].map(([kind, text]) => h('span', {}, h('span', { class: `swatch segment ${kind}` }), text)),
    ),
    banks.map((bank) => bankBars(bank, worst)),
  );
};

/** @param {Figures} b */
const figuresRow = (b) => [
  b.institutionId,
  String(b.calls),
  String(b.errors),
  percent(b.errorRate),
  latency(b.p95DurationMs),
];

const HEADERS = ['Bank', 'Calls', 'Errors', 'Error rate', '95th percentile latency'];

/**
 * @typedef {object} Source whose calls the screen shows
 * @property {(from: string) => Promise<Figures[]>} load the banks' figures from `from` (a UTC day) on
 * @property {string} whose the customers the calls were made for, in words
 */

/**
 * @param {ReturnType<typeof healthView>} view
 * @param {Source} source
 */
function load(view, source) {
  const days = Number(view.days.value);
  const from = new Date(Date.now() - (days - 1) * DAY).toISOString().slice(0, 10);
  const range = days === 1 ? 'today' : `in the last ${days} days`;
  return loadInto(view.figures, {
    what: 'the banks’ health',
    load: () => source.load(from),
    empty: `No call was made to a bank ${range}.`,
    render: (banks) => [chart(banks), table(`Calls to each bank ${range}`, HEADERS, banks.map(figuresRow))],
  });
}

/**
 * @param {HTMLElement} main
 * @param {Source} source
 * @param {Node[]} [scope] what says whose figures these are, beneath the heading
 */
function healthScreen(main, source, scope = []) {
  const view = healthView();
  view.days.addEventListener('change', () => void load(view, source));
  main.append(
    h('h1', {}, 'Bank health'),
    ...scope,
    h(
      'p',
      {},
      `How each bank answered the calls made for ${source.whose}: the share that failed on the bank’s side (no answer, a server error, too many requests; not a refusal of what was asked), and how long the slowest 5% took. When a customer’s bank is failing, this is where it shows.`,
    ),
    h('label', { for: 'bank-health-days' }, 'Calls made'),
    h('div', { class: 'row' }, view.days),
    view.figures,
  );
  void load(view, source);
}

/** @param {HTMLElement} main */
export function bankHealthScreen(main) {
  healthScreen(main, {
    whose: 'your customers',
    load: async (from) => (await bff.insights.institutionHealth({ from })).institutions,
  });
}

/**
 * Every merchant's calls, or one merchant's (`#/bank-health/<id>`, linked from its screen).
 * @param {HTMLElement} main
 * @param {string} [merchantId]
 */
export function operatorBankHealthScreen(main, merchantId) {
  const query = merchantId ? { merchantId } : {};
  healthScreen(
    main,
    {
      whose: merchantId ? 'this merchant’s customers' : 'every merchant’s customers',
      load: async (from) =>
        (await operator.get('/admin/insights/institution-health', { query: { ...query, from } })).data
          .institutions,
    },
    operatorScope('#/bank-health', merchantId, "Every merchant's calls"),
  );
}
