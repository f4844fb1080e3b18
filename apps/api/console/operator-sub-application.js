// A merchant's upstream sub-application, on the operator's merchant screen: set to one the upstream knows
// (suggested from its list) or cleared back to the root application. A refusal is said next to the field,
// which keeps what was typed.
import { operator } from './api.js';
import { errorText, h } from './ui.js';

/** @typedef {import('./operator-client').Schema<'MerchantOutput'>} Merchant */
/** @typedef {import('./operator-merchant.js').Screen} Screen the merchant screen's */
/** @typedef {ReturnType<typeof knownSubApplications>} Known */

/**
 * The upstream's first 100 sub-applications, offered as suggestions: asked once per screen, not on every
 * save, and never all of them (any other id can be typed; the upstream is asked whether it knows it).
 */
export function knownSubApplications() {
  const known = operator.page('/admin/upstream/applications', { query: { limit: 100 } }, undefined);
  // Read where the form is drawn; a screen that never draws it must not leave the failure unhandled.
  known.catch(() => undefined);
  return known;
}

/** @param {Merchant} merchant */
const named = (merchant) =>
  merchant.subApplicationName
    ? `${merchant.subApplicationName} (${merchant.subApplicationId})`
    : merchant.subApplicationId;

/**
 * The datalist of suggestions, and a line saying how many the upstream offered.
 * @param {Known} known
 */
function suggestionsOf(known) {
  const list = h('datalist', { id: 'upstream-sub-applications' });
  const offered = h(
    'p',
    { id: 'merchant-sub-application-known', class: 'muted' },
    'Asking the upstream for its sub-applications…',
  );
  void known.then(
    ({ items, nextCursor }) => {
      list.replaceChildren(...items.map((a) => h('option', { value: a.id }, a.name ?? a.id)));
      const count = `${items.length} sub-application${items.length === 1 ? '' : 's'}`;
      offered.textContent = !items.length
        ? 'The upstream lists no sub-application.'
        : nextCursor
          ? `The field suggests the upstream's first ${count} by id and name; type any other id.`
          : `The upstream lists ${count}: the field suggests them by id and name.`;
    },
    /** @param {unknown} error */
    (error) => {
      offered.textContent = `Could not ask the upstream for its sub-applications; type the id. ${errorText(error)}`;
    },
  );
  return [offered, list];
}

/** @param {Merchant} merchant */
function subApplicationInput(merchant) {
  return h('input', {
    id: 'merchant-sub-application',
    name: 'merchant-sub-application',
    class: 'mono wide',
    maxlength: 255,
    autocomplete: 'off',
    spellcheck: 'false',
    list: 'upstream-sub-applications',
    value: merchant.subApplicationId ?? '',
    'aria-describedby':
      'merchant-sub-application-help merchant-sub-application-known merchant-sub-application-message',
  });
}

/**
 * Asking the api to change the sub-application, said next to the field: `refuse` marks the field with
 * the reason and keeps what was typed. `screen` is the merchant screen's (`id`, `say`, `refresh`).
 * @param {Screen} screen
 * @param {HTMLInputElement} input
 * @param {HTMLElement} message
 */
function changer(screen, input, message) {
  /** @param {string} text */
  const refuse = (text) => {
    message.className = 'error';
    message.textContent = text;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  };
  /**
   * @param {string | null} value null: the root application
   * @param {(merchant: Merchant) => string} done what the status line says of the changed merchant
   */
  const change = async (value, done) => {
    message.className = 'state';
    message.textContent = 'Asking the upstream…';
    input.removeAttribute('aria-invalid');
    try {
      const { data } = await operator.patch('/admin/merchants/{id}', {
        path: { id: screen.id },
        body: { subApplicationId: value },
      });
      screen.say(true, done(data));
      await screen.refresh();
    } catch (error) {
      refuse(`Could not change the sub-application. ${errorText(error)}`);
    }
  };
  return { change, refuse };
}

/**
 * The part: what the merchant acts as now, and the form that changes it.
 * @param {Screen} screen
 * @param {Merchant} merchant
 * @param {Known} known
 */
export function subApplicationForm(screen, merchant, known) {
  const message = h('p', { id: 'merchant-sub-application-message', role: 'status' });
  const input = subApplicationInput(merchant);
  const { change, refuse } = changer(screen, input, message);
  /** @param {SubmitEvent} event */
  const set = (event) => {
    event.preventDefault();
    const value = input.value.trim();
    if (!value) return refuse('Type a sub-application id, or use "Use none" to clear it.');
    void change(value, (data) => `${data.name} now acts as the sub-application ${named(data)}.`);
  };
  const clear = () => void change(null, (data) => `${data.name} now acts as the root application.`);
  const now = merchant.subApplicationId ? named(merchant) : 'none: the merchant acts as the root application';
  return [
    h('p', {}, 'Now: ', h('strong', {}, now), '.'),
    h(
      'form',
      { onsubmit: set },
      h('label', { for: 'merchant-sub-application' }, 'Sub-application id'),
      h(
        'p',
        { id: 'merchant-sub-application-help', class: 'muted' },
        "The upstream application id the merchant acts as; the upstream is asked whether it knows it. Its customers' consents and payments live under it, so it changes only while the merchant has none.",
      ),
      suggestionsOf(known),
      h(
        'div',
        { class: 'row' },
        input,
        h('button', { type: 'submit' }, 'Set the sub-application'),
        merchant.subApplicationId
          ? h(
              'button',
              { type: 'button', class: 'secondary', onclick: clear },
              'Use none (the root application)',
            )
          : '',
      ),
      message,
    ),
  ];
}
