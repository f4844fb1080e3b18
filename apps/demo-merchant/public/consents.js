// 6. The customer's consents: status, days to expiry, revoke, re-authorise.
import { showHeadroom } from './payments.js';
import { $, back, dayCount, errorText, firstPage, row, show, state } from './ui.js';

export async function refreshConsents() {
  const consents = await firstPage(
    () => state.bff.consents.list(state.customer.id, { limit: 50 }),
    'consent-status',
  );
  if (!consents) return;
  // The newest authorised sweeping consent is the one "Pay 10.00" pays under.
  const vrp = consents.find((c) => c.kind === 'VRP_SWEEPING' && c.status === 'AUTHORIZED');
  await showHeadroom(vrp?.id ?? null);
  const body = $('consent-table').tBodies[0];
  body.replaceChildren();
  for (const consent of consents) {
    const days = consent.expiresAt
      ? Math.ceil((Date.parse(consent.expiresAt) - Date.now()) / 86_400_000)
      : null;
    const tr = row([
      consent.institutionId,
      consent.kind,
      consent.status,
      days === null ? '—' : dayCount(days),
    ]);
    tr.dataset.consentId = consent.id;
    const actions = document.createElement('td');
    if (consent.status === 'AUTHORIZED' || consent.status === 'EXPIRED') {
      actions.append(button('Revoke', 'revoke', () => revoke(consent)));
    }
    if (consent.kind === 'ACCOUNT' && ['AUTHORIZED', 'EXPIRED'].includes(consent.status)) {
      actions.append(button('Re-authorise', '', () => reauthorise(consent)));
    }
    tr.append(actions);
    body.append(tr);
  }
}

function button(text, className, onclick) {
  const element = document.createElement('button');
  element.textContent = text;
  element.className = className;
  element.onclick = () => void onclick();
  return element;
}

async function revoke(consent) {
  try {
    await state.bff.consents.revoke(consent.id);
    show('consent-status', '');
  } catch (error) {
    show('consent-status', errorText(error), true);
  }
  await refreshConsents();
}

/**
 * The bank renews the consent on its page, then sends the customer back here, where <bff-connect> reads
 * the way back as after connecting (its return-url is this page, without a query).
 */
async function reauthorise(consent) {
  try {
    const { authorisationUrl } = await state.bff.consents.reauthorise(consent.id, { redirectUrl: back('') });
    location.assign(authorisationUrl);
  } catch (error) {
    show('consent-status', errorText(error), true);
  }
}
