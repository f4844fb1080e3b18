// The operator's parked payments: those no status check will move any more, each settled by a person
// once the bank said what became of it.
import { operator } from './api.js';
import { pagedInto } from './loading.js';
import { errorText, h, screenOf, when } from './ui.js';

/** What the screen's parts share: the status line (`say`), the list and `refresh`, which redraws it. */
function parkedFields() {
  return {
    list: h('div', { id: 'parked-list' }),
  };
}

/** @typedef {import('./ui.js').ScreenWith<ReturnType<typeof parkedFields>>} Screen */
/** @typedef {import('./operator-client').Schema<'ParkedPaymentOutput'>} ParkedPayment */
/** @typedef {import('./operator-client').Schema<'SettlePaymentInput'>['status']} Outcome */

function parkedView() {
  return screenOf(parkedFields(), refresh);
}

const PARKED_HEADERS = [
  'Since',
  'Merchant',
  'Customer',
  'Reference',
  'Kind',
  'Amount',
  'Status seen',
  'Ask the bank with',
  'Why it stopped',
  'Settle',
];

/** @param {Screen} screen */
function refresh(screen) {
  return pagedInto(screen.list, {
    what: 'the parked payments',
    load: (cursor) => operator.page('/admin/payments/parked', { query: { limit: 50 } }, cursor),
    empty: 'No payment is waiting for a person.',
    caption: 'Parked payments',
    headers: PARKED_HEADERS,
    row: (payment) => paymentRow(screen, payment),
  });
}

/**
 * @param {Screen} screen
 * @param {ParkedPayment} payment
 */
function paymentRow(screen, payment) {
  return [
    when(payment.createdAt),
    payment.merchantName,
    // What the merchant's support quotes when it asks about a payment.
    payment.userReference,
    payment.reference ?? '—',
    payment.kind === 'VRP' ? 'Variable recurring' : 'Single',
    h('span', { class: 'mono' }, `${payment.amount.amount} ${payment.amount.currency}`),
    payment.status === 'SUBMITTING'
      ? 'Sent twice, the second refused: the first may have gone through'
      : `${payment.status} (as the api names it)`,
    h(
      'span',
      {},
      'Our id ',
      h('code', {}, payment.paymentIdempotencyId),
      payment.upstreamPaymentId ? ['; the upstream’s ', h('code', {}, payment.upstreamPaymentId)] : '',
    ),
    payment.reason ?? '—',
    settleForm(screen, payment),
  ];
}

/**
 * A note (who at the bank said so) and the two outcomes; the merchant gets its event once.
 * @param {Screen} screen
 * @param {ParkedPayment} payment
 */
function settleForm(screen, payment) {
  const id = `note-${payment.id}`;
  const note = h('input', { id, name: id, maxlength: 500, autocomplete: 'off' });
  /**
   * @param {Outcome} outcome
   * @param {string} text
   */
  const button = (outcome, text) =>
    h(
      'button',
      {
        type: 'button',
        class: outcome === 'FAILED' ? 'danger' : undefined,
        'aria-label': `${text} ${payment.paymentIdempotencyId}`,
        onclick: () => void settle(screen, payment, outcome, note.value.trim()),
      },
      text,
    );
  return h(
    'div',
    {},
    h('label', { for: id }, 'Note (the bank’s reference)'),
    note,
    h('div', { class: 'row' }, button('COMPLETED', 'Completed'), button('FAILED', 'Failed')),
  );
}

/**
 * @param {Screen} screen
 * @param {ParkedPayment} payment
 * @param {Outcome} outcome
 * @param {string} note empty: none
 */
async function settle(screen, payment, outcome, note) {
  const words = outcome === 'COMPLETED' ? 'completed' : 'failed';
  // Final and told to the merchant at once: the question is worth asking.
  if (!window.confirm(`Settle ${payment.paymentIdempotencyId} as ${words}? The merchant is told at once.`))
    return;
  try {
    await operator.post('/admin/payments/{id}/settle', {
      path: { id: payment.id },
      body: { status: outcome, ...(note ? { note } : {}) },
    });
    screen.say(true, `The payment ${payment.paymentIdempotencyId} is settled as ${words}.`);
  } catch (error) {
    screen.say(false, `Could not settle the payment. ${errorText(error)}`);
  }
  await screen.refresh();
}

/** @param {HTMLElement} main */
export function parkedScreen(main) {
  const screen = parkedView();
  main.append(
    h('h1', {}, 'Parked payments'),
    h(
      'p',
      {},
      'Payments no status check will move any more, oldest first, 50 at a time. Ask the bank with the ids shown, then settle each as it answered: the merchant gets payment.completed or payment.failed once.',
    ),
    screen.status,
    h('section', {}, h('h2', {}, 'Waiting for a person'), screen.list),
  );
  void screen.refresh();
}
