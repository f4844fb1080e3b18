// The upstream call log of a consent (its runs' and payments' calls too), a sync run or a payment: each
// attempt of each call made to the upstream for it, newest first, loaded when first opened and a page at
// a time (GET …/upstream-calls). Each call's upstream tracing id is what support quotes to the bank.
import { bff } from './api.js';
import { loadedWhenOpened, pagedInto } from './loading.js';
import { h, toTheSecond } from './ui.js';

/** @typedef {import('./merchant-sdk.js').UpstreamCall} UpstreamCall */
/** @typedef {'consent' | 'run' | 'payment'} Logged what a log is of */

/** Calls a page: a run makes several a page of transactions it reads. */
const PAGE = 25;

/** @type {Record<Logged, (id: string) => import('./merchant-sdk.js').PagedList<UpstreamCall>>} */
const LOGS = {
  consent: (id) => bff.consents.upstreamCalls(id, { limit: PAGE }),
  run: (id) => bff.syncs.upstreamCalls(id, { limit: PAGE }),
  payment: (id) => bff.payments.upstreamCalls(id, { limit: PAGE }),
};

const HEADERS = [
  'When',
  'Operation',
  'Institution',
  'HTTP status',
  'Error code',
  'Duration',
  'Attempt',
  'Upstream tracing id',
];

/**
 * A call: a failed one says "Failed" in words beside its error code, not by its colour alone; the
 * tracing id is selected whole by one click, to copy.
 * @param {UpstreamCall} call
 */
const callRow = (call) => [
  toTheSecond(call.at),
  call.operation,
  call.institutionId ?? '—',
  call.status === null ? 'No answer' : String(call.status),
  call.errorCode ? h('span', { class: 'error' }, `Failed: ${call.errorCode}`) : 'None',
  `${call.durationMs} ms`,
  call.attempt === 1 ? '1' : `${call.attempt} (a retry)`,
  call.tracingId ? h('code', { class: 'copyable' }, call.tracingId) : '—',
];

/**
 * The "Upstream calls" disclosure of a consent, a run or a payment.
 * @param {Logged} logged
 * @param {string} id
 * @param {string} of what it is, for its caption and screen readers: "of the run 0190…"
 */
export function upstreamCalls(logged, id, of) {
  return loadedWhenOpened(
    'Upstream calls',
    of,
    (part) =>
      pagedInto(part, {
        what: `the upstream calls ${of}`,
        load: (cursor) => LOGS[logged](id).page(cursor),
        empty: 'No call to the upstream is kept for it (they are kept as long as events).',
        caption: `Upstream calls ${of}`,
        headers: HEADERS,
        row: callRow,
      }),
    `calls-${id}`,
  );
}
