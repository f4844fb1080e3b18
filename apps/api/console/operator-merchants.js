// The operator's merchants: the list, on-boarding one (its first API key shown once), disabling and
// enabling one. One merchant's own screen is in operator-merchant.js.
import { operator } from './api.js';
import { showKeyOnce } from './api-keys.js';
import { pagedInto } from './loading.js';
import { OPERATOR_KEY_ADVICE, originsField, originsFrom } from './operator-merchant.js';
import { errorText, h, screenOf, submitting, tableRow, when } from './ui.js';

/** What the screen's parts share: the status line (`say`), the list and `refresh`, which redraws it. */
function merchantsFields() {
  const parts = {
    list: h('div', { id: 'merchants-list' }),
    issued: h('section', { id: 'new-key', class: 'new-key', hidden: true, 'aria-live': 'polite' }),
  };
  return { parts };
}

/** @typedef {import('./ui.js').ScreenWith<ReturnType<typeof merchantsFields>>} Screen */
/** @typedef {import('./operator-client').Schema<'MerchantOutput'>} Merchant */

function merchantsView() {
  return screenOf(merchantsFields(), refresh);
}

/** @param {Screen} screen */
function refresh(screen) {
  return pagedInto(screen.parts.list, {
    what: 'the merchants',
    load: (cursor) => operator.page('/admin/merchants', { query: { limit: 50 } }, cursor),
    empty: 'No merchant is on-boarded yet.',
    caption: 'Merchants',
    headers: ['Name', 'Since', 'Active keys', 'State', ''],
    row: (merchant) => cells(screen, merchant),
  });
}

/**
 * A merchant's cells; its button redraws the row in place, so a later page stays where it is.
 * @param {Screen} screen
 * @param {Merchant} merchant
 */
function cells(screen, merchant) {
  return [
    h('a', { href: `#/merchants/${merchant.id}` }, merchant.name),
    when(merchant.createdAt),
    String(merchant.apiKeys.filter((key) => !key.revokedAt).length),
    merchant.disabledAt ? `Disabled since ${when(merchant.disabledAt)}` : 'Enabled',
    h(
      'button',
      {
        type: 'button',
        class: merchant.disabledAt ? 'secondary' : 'danger',
        'aria-label': `${merchant.disabledAt ? 'Enable' : 'Disable'} ${merchant.name}`,
        onclick: (event) =>
          void toggle(
            screen,
            merchant,
            /** @type {HTMLTableRowElement} */ (event.currentTarget.closest('tr')),
          ),
      },
      merchant.disabledAt ? 'Enable' : 'Disable',
    ),
  ];
}

/**
 * @param {Screen} screen
 * @param {Merchant} merchant
 * @param {HTMLTableRowElement} row its row in the list, redrawn in place
 */
async function toggle(screen, merchant, row) {
  const action = merchant.disabledAt ? 'enable' : 'disable';
  const path = merchant.disabledAt ? '/admin/merchants/{id}/enable' : '/admin/merchants/{id}/disable';
  try {
    const { data } = await operator.post(path, { path: { id: merchant.id } });
    screen.say(true, `${merchant.name} is ${action}d.`);
    const redrawn = tableRow(cells(screen, data));
    row.replaceWith(redrawn);
    // The button the operator pressed is gone: its successor takes the focus.
    /** @type {HTMLButtonElement} */ (redrawn.querySelector('button')).focus();
  } catch (error) {
    screen.say(false, `Could not ${action} ${merchant.name}. ${errorText(error)}`);
  }
}

/**
 * On-boarding one: its first API key is shown this once in the `issued` part.
 * @param {Screen} screen
 */
function onboardForm(screen) {
  const name = h('input', {
    id: 'new-merchant-name',
    name: 'new-merchant-name',
    required: true,
    maxlength: 255,
    autocomplete: 'off',
  });
  const onboard = submitting(async () => {
    const origins = originsFrom(/** @type {HTMLTextAreaElement} */ (form.querySelector('textarea')).value);
    try {
      const { data } = await operator.post('/admin/merchants', {
        body: { name: name.value.trim(), ...(origins.length ? { frontendOrigins: origins } : {}) },
      });
      form.reset();
      screen.say(true, `${data.merchant.name} is on-boarded.`);
      showKeyOnce(screen.parts.issued, {
        title: `The first API key of ${data.merchant.name}`,
        key: data.apiKey.key,
        advice: OPERATOR_KEY_ADVICE,
        back: name,
      });
    } catch (error) {
      screen.say(false, `Could not on-board the merchant. ${errorText(error)}`);
    }
    await screen.refresh();
  });
  const form = h(
    'form',
    { onsubmit: onboard },
    h('label', { for: 'new-merchant-name' }, 'Name'),
    name,
    originsField('new-merchant-origins'),
    h('p', {}, h('button', { type: 'submit' }, 'On-board')),
  );
  return form;
}

/** @param {HTMLElement} main */
export function merchantsScreen(main) {
  const screen = merchantsView();
  const { parts } = screen;
  main.append(
    h('h1', {}, 'Merchants'),
    h(
      'p',
      {},
      "Disabling a merchant refuses its keys and its customers' sessions at once and pauses its syncs and deliveries; enabling it resumes them. A merchant's name opens its name, frontend origins, upstream sub-application and API keys. Oldest first, 50 at a time.",
    ),
    screen.status,
    h('section', {}, h('h2', {}, 'On-board a merchant'), onboardForm(screen)),
    parts.issued,
    h('section', {}, h('h2', {}, 'All merchants'), parts.list),
  );
  void screen.refresh();
}
