// 7. Payments: sweeping VRP with its limits and headroom, a single payment through the bank's page, and
// the customer's payments with their statuses (refreshed by the payment.* events).
import { $, back, errorText, firstPage, money, row, show, state } from './ui.js';

const PAYEE = {
  name: 'Demo savings',
  accountIdentifications: [
    { type: 'SORT_CODE', identification: '123456' },
    { type: 'ACCOUNT_NUMBER', identification: '12345678' },
  ],
};

/** The authorised sweeping consent "Pay 10.00" pays under (consents.js finds it in the customer's list). */
let vrpConsentId = null;
/** The single payment the bank just sent the customer back from: its line follows its status. */
let returnedPaymentId = null;

/** Back from the bank's page: say where the payment is, and keep saying it as its events come in. */
export function followReturnedPayment(query) {
  returnedPaymentId = query.get('paymentId');
  show('vrp-status', `Payment ${query.get('status')}`);
}

export async function vrpSetup() {
  try {
    const { authorisationUrl } = await state.bff.vrp.createConsent(state.customer.id, {
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
    });
    location.assign(authorisationUrl);
  } catch (error) {
    show('vrp-status', errorText(error), true);
  }
}

export async function vrpPay() {
  if (!vrpConsentId) return show('vrp-status', 'Set up sweeping first.', true);
  try {
    const payment = await state.bff.vrp.pay(vrpConsentId, {
      amount: { amount: '10.00', currency: 'GBP' },
      reference: 'Demo sweep',
    });
    show('vrp-status', `Paid 10.00: ${payment.status}`);
  } catch (error) {
    // A VRP_LIMIT_EXCEEDED names the limit and what is left of it in its details.
    const issue = error?.code === 'VRP_LIMIT_EXCEEDED' ? error.details?.[0]?.issue : undefined;
    show('vrp-status', `Refused: ${issue ?? errorText(error)}`, true);
  }
  await Promise.all([refreshPayments(), showHeadroom(vrpConsentId)]);
}

const PERIOD = {
  DAILY: 'day',
  WEEKLY: 'week',
  FORTNIGHTLY: 'fortnight',
  MONTHLY: 'month',
  HALF_YEARLY: 'half-year',
  YEARLY: 'year',
};
const amount = (m) => (m ? money(m.amount, m.currency) : '—');

/**
 * The sweeping consent's limits as the BFF checks them: the limit, what was paid and what is left in the
 * current period, from the consent itself (never from the form).
 */
export async function showHeadroom(consentId) {
  vrpConsentId = consentId;
  $('vrp-pay-row').hidden = !consentId;
  if (!consentId) return show('vrp-headroom', '');
  try {
    const { controlParameters: control } = await state.bff.vrp.getConsent(consentId);
    // The form shows the limits of the consent in force, not its defaults, beside its headroom.
    if (control.maxAmountPerPayment) $('vrp-max').value = control.maxAmountPerPayment.amount;
    const monthly = (control.periodicLimits ?? []).find((l) => l.frequency === 'MONTHLY');
    if (monthly) $('vrp-month').value = monthly.totalMaxAmount.amount;
    const periods = (control.periodicLimits ?? []).map(
      (l) =>
        `${amount(l.limitInCurrentPeriod ?? l.totalMaxAmount)} a ${PERIOD[l.frequency] ?? l.frequency}: ` +
        `paid ${amount(l.paidInCurrentPeriod)}, headroom ${amount(l.remainingInCurrentPeriod)}`,
    );
    show('vrp-headroom', [`max ${amount(control.maxAmountPerPayment)} a payment`, ...periods].join('; '));
  } catch (error) {
    show('vrp-headroom', errorText(error), true);
  }
}

export async function singlePay() {
  try {
    const payment = await state.bff.payments.create(state.customer.id, {
      institutionId: 'sandbox-payments',
      amount: { amount: '12.34', currency: 'GBP' },
      payee: PAYEE,
      reference: 'Demo order',
      redirectUrl: back('?from=payment'),
    });
    location.assign(payment.authorisationUrl);
  } catch (error) {
    show('vrp-status', errorText(error), true);
  }
}

export async function refreshPayments() {
  const payments = await firstPage(
    () => state.bff.payments.list(state.customer.id, { limit: 20 }),
    'vrp-status',
  );
  if (!payments) return;
  const body = $('payment-table').tBodies[0];
  body.replaceChildren();
  for (const p of payments) {
    const tr = row([
      p.kind,
      [money(p.amount.amount, p.amount.currency), 'num'],
      [p.status, 'payment-status'],
      p.createdAt.slice(0, 19).replace('T', ' '),
    ]);
    tr.dataset.paymentId = p.id;
    body.append(tr);
    if (p.id === returnedPaymentId) show('vrp-status', `Payment ${p.status}`, p.status === 'FAILED');
  }
}
