// A merchant's frontend origins: the web pages allowed to call the api with a customer's session.
import { bff } from './api.js';
import { loadInto } from './loading.js';
import { errorText, h, screenOf, submitting } from './ui.js';

/**
 * What the screen's parts share: the status line (`say`), the list, the origins it last showed
 * (`current`, which a change starts from) and `refresh`, which reads them again and redraws the list.
 */
function originsFields() {
  return {
    list: h('div', { id: 'origins-list' }),
    current: /** @type {string[]} */ ([]),
  };
}

/** @typedef {import('./ui.js').ScreenWith<ReturnType<typeof originsFields>>} Screen */

function originsView() {
  return screenOf(originsFields(), refresh);
}

/** @param {Screen} screen */
function refresh(screen) {
  return loadInto(screen.list, {
    what: 'your frontend origins',
    load: async () => (screen.current = (await bff.merchant.get()).frontendOrigins),
    empty: 'No origin yet: no web page may call the api with a customer session.',
    render: (origins) =>
      h(
        'ul',
        {},
        origins.map((origin) => originItem(screen, origin)),
      ),
  });
}

/**
 * @param {Screen} screen
 * @param {string} origin
 */
function originItem(screen, origin) {
  return h(
    'li',
    {},
    h('code', {}, origin),
    ' ',
    h(
      'button',
      {
        type: 'button',
        class: 'danger',
        'aria-label': `Remove ${origin}`,
        onclick: () =>
          save(
            screen,
            screen.current.filter((c) => c !== origin),
            `${origin} is removed.`,
          ),
      },
      'Remove',
    ),
  );
}

/**
 * The api takes the whole list: what is sent replaces what was there.
 * @param {Screen} screen
 * @param {string[]} origins
 * @param {string} done what the status line says once it is saved
 */
async function save(screen, origins, done) {
  try {
    await bff.merchant.update({ frontendOrigins: origins });
    screen.say(true, done);
    return true;
  } catch (error) {
    screen.say(false, `Could not save the origins. ${errorText(error)}`);
    return false;
  } finally {
    await screen.refresh();
  }
}

/** @param {Screen} screen */
function addForm(screen) {
  const origin = h('input', {
    id: 'new-origin',
    name: 'new-origin',
    type: 'url',
    required: true,
    placeholder: 'https://shop.example',
    autocomplete: 'off',
    'aria-describedby': 'new-origin-help',
  });
  const add = submitting(async () => {
    const value = origin.value.trim();
    if (await save(screen, [...screen.current, value], `${value} is added.`)) origin.value = '';
  });
  return h(
    'form',
    { onsubmit: add },
    h('label', { for: 'new-origin' }, 'Origin'),
    h('p', { id: 'new-origin-help', class: 'muted' }, 'Like https://shop.example, without a path.'),
    h('div', { class: 'row' }, origin, h('button', { type: 'submit' }, 'Add')),
  );
}

/** @param {HTMLElement} main */
export function originsScreen(main) {
  const screen = originsView();
  main.append(
    h('h1', {}, 'Frontend origins'),
    h(
      'p',
      {},
      'The web pages (scheme, host and port) allowed to call the api with a customer session, such as the page that shows the bank picker. A change applies at once.',
    ),
    screen.status,
    h('section', {}, h('h2', {}, 'Add an origin'), addForm(screen)),
    h('section', {}, h('h2', {}, 'Allowed origins'), screen.list),
  );
  void screen.refresh();
}
