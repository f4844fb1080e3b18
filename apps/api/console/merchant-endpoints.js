// A merchant's event endpoints: the list and adding one (its signing secret shown once), and the words
// and the secret's showing that one endpoint's screen (merchant-endpoint.js) shares with it.
import { bff } from './api.js';
import { endpointFields } from './endpoint-fields.js';
import { eventMeaning, eventWords } from './event-types.js';
import { loadInto } from './loading.js';
import { announce, errorText, h, screenOf, section, submitting, table, when } from './ui.js';

/** @typedef {import('./merchant-sdk.js').EventEndpoint} EventEndpoint */

/**
 * The api's words for the type (its whole meaning as a title), then its own name, shown as such.
 * @param {import('./merchant-sdk.js').BffEventType} type
 */
export const eventTypeText = (type) =>
  h('span', { title: eventMeaning(type) }, `${eventWords(type)} `, h('code', { class: 'muted' }, type));

/** @param {EventEndpoint['types']} types none: every type */
export const typesText = (types) =>
  types.length === 0 ? 'Every type' : types.map((type) => eventWords(type)).join(', ');

/** @param {EventEndpoint} endpoint */
export const health = (endpoint) =>
  endpoint.disabledAt
    ? `Turned off ${when(endpoint.disabledAt)}${endpoint.disabledReason ? `: ${endpoint.disabledReason}` : ''}`
    : endpoint.failingSince
      ? `Failing since ${when(endpoint.failingSince)}`
      : 'Working';

/**
 * A signing secret, this once: it is in no list or later answer, and leaves the page when done. `box` is
 * the section it is shown in; `back` takes the focus afterwards.
 * @param {HTMLElement} box
 * @param {string} title
 * @param {string} secret
 * @param {HTMLElement} back
 */
export function showSecretOnce(box, title, secret, back) {
  const done = h('button', { type: 'button', class: 'secondary' }, 'I have copied it');
  done.addEventListener('click', () => {
    box.replaceChildren();
    box.hidden = true;
    back.focus();
  });
  const shownSecret = h('input', { id: 'new-secret-value', readonly: true, value: secret, class: 'mono' });
  box.replaceChildren(
    h('h2', {}, title),
    h(
      'p',
      {},
      'Copy it now: it is shown only this once. Your server checks each delivery with it (the standardwebhooks library does).',
    ),
    h('label', { for: 'new-secret-value' }, 'Signing secret'),
    shownSecret,
    h('p', {}, done),
  );
  box.hidden = false;
  shownSecret.select();
  announce(`${title}. Copy it now: it is shown only this once.`);
}

/** What the screen's parts share: the status line (`say`), the list and `refresh`, which redraws it. */
function endpointsFields() {
  const parts = {
    list: h('div', { id: 'endpoints-list' }),
    secretBox: h('section', { id: 'new-secret', class: 'new-key', hidden: true, 'aria-live': 'polite' }),
  };
  return { parts };
}

/** @typedef {import('./ui.js').ScreenWith<ReturnType<typeof endpointsFields>>} Screen */

function endpointsView() {
  return screenOf(endpointsFields(), refresh);
}

/** @param {Screen} screen */
function refresh(screen) {
  return loadInto(screen.parts.list, {
    what: 'your event endpoints',
    load: () => bff.eventEndpoints.list(),
    empty: 'No endpoint yet: events reach your servers only once you add one.',
    render: endpointsTable,
  });
}

/** @param {EventEndpoint[]} endpoints */
function endpointsTable(endpoints) {
  return table(
    'Event endpoints',
    ['Address', 'Events', 'Added', 'State', ''],
    endpoints.map((endpoint) => [
      h('code', {}, endpoint.url),
      typesText(endpoint.types),
      when(endpoint.createdAt),
      health(endpoint),
      h(
        'a',
        {
          href: `#/event-endpoints/${endpoint.id}`,
          'aria-label': `Test, secret and deliveries of ${endpoint.url}`,
        },
        'Test, secret and deliveries',
      ),
    ]),
  );
}

/**
 * Adding one: its signing secret is shown this once, in the `secretBox` part.
 * @param {Screen} screen
 */
function addForm(screen) {
  const fields = endpointFields('endpoint');
  const add = submitting(async () => {
    try {
      const created = await bff.eventEndpoints.create(fields.read());
      fields.clear();
      screen.say(true, `${created.endpoint.url} is added.`);
      showSecretOnce(screen.parts.secretBox, 'The new endpoint’s signing secret', created.secret, fields.url);
    } catch (error) {
      screen.say(false, `Could not add the endpoint. ${errorText(error)}`);
    }
    await screen.refresh();
  });
  return h('form', { onsubmit: add }, fields.elements, h('button', { type: 'submit' }, 'Add the endpoint'));
}

/** @param {HTMLElement} main */
export function endpointsScreen(main) {
  const screen = endpointsView();
  const { parts } = screen;
  main.append(
    h('h1', {}, 'Event endpoints'),
    h(
      'p',
      {},
      'The addresses on your servers the api sends events to, each signed with the endpoint’s secret. A delivery that fails is tried again for 72 hours.',
    ),
    screen.status,
    parts.secretBox,
    section('Add an endpoint', addForm(screen)),
    section('Your endpoints', parts.list),
  );
  void screen.refresh();
}
