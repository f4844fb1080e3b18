// One of a merchant's event endpoints: what it takes and how it fares, a test event, a new secret (shown
// once), turning it back on, changing its address, types or rate limit, deleting it, and its delivery log
// with retries (merchant-endpoint-deliveries.js).
import { bff } from './api.js';
import { endpointFields } from './endpoint-fields.js';
import { loadInto } from './loading.js';
import { deliveriesOf, deliveriesSection, loadDeliveries } from './merchant-endpoint-deliveries.js';
import { health, showSecretOnce, typesText } from './merchant-endpoints.js';
import { errorText, h, screenOf, section, submitting, when } from './ui.js';

/**
 * What the screen's parts share: the endpoint's id, the status line (`say`), the part containers, the
 * delivery log it pages (`log`) and `refresh`, which reads the endpoint again and redraws what it shows.
 * @param {string} endpointId
 */
function endpointScreenFields(endpointId) {
  const parts = {
    heading: h('h1', {}, 'Event endpoint'),
    about: h('div', { id: 'endpoint-about' }),
    tested: h('div', { id: 'test-result', 'aria-live': 'polite' }),
    secretBox: h('section', { id: 'new-secret', class: 'new-key', hidden: true, 'aria-live': 'polite' }),
    deliveries: h('div', { id: 'deliveries' }),
    actions: h('div', { class: 'row' }),
    change: h('div', { id: 'endpoint-change' }),
  };
  return {
    id: endpointId,
    parts,
    log: deliveriesOf(endpointId),
  };
}

/** @typedef {import('./ui.js').ScreenWith<ReturnType<typeof endpointScreenFields>>} Screen */
/** @typedef {import('./merchant-sdk.js').EventEndpoint} EventEndpoint */

/** @param {string} endpointId */
function endpointView(endpointId) {
  return screenOf(endpointScreenFields(endpointId), loadEndpoint);
}

/** @param {Screen} screen */
function loadEndpoint(screen) {
  const { parts } = screen;
  return loadInto(parts.about, {
    what: 'the endpoint',
    load: () => bff.eventEndpoints.get(screen.id),
    render: (endpoint) => {
      parts.heading.textContent = `Event endpoint ${endpoint.url}`;
      // Filled in once: a later reload (after a rotation, say) must not wipe what is being typed.
      if (!parts.change.firstChild) parts.change.append(changeForm(screen, endpoint));
      parts.actions.querySelector('.enable')?.remove();
      if (endpoint.disabledAt)
        parts.actions.append(
          h(
            'button',
            { type: 'button', class: 'secondary enable', onclick: () => void enable(screen) },
            'Turn it on again',
          ),
        );
      return aboutList(endpoint);
    },
  });
}

/** @param {EventEndpoint} endpoint */
function aboutList(endpoint) {
  return h(
    'dl',
    {},
    h('dt', {}, 'Events'),
    h('dd', {}, typesText(endpoint.types)),
    h('dt', {}, 'State'),
    h('dd', {}, health(endpoint)),
    h('dt', {}, 'Rate limit'),
    h('dd', { id: 'endpoint-rate-limit' }, rateText(endpoint.rateLimit)),
    h('dt', {}, 'Previous secret'),
    h(
      'dd',
      {},
      endpoint.previousSecretExpiresAt
        ? `Still signed with until ${when(endpoint.previousSecretExpiresAt)}`
        : 'None',
    ),
  );
}

/** @param {EventEndpoint['rateLimit']} rateLimit */
const rateText = (rateLimit) =>
  rateLimit === null ? 'None: deliveries go as they come' : `At most ${rateLimit} deliveries a second`;

/**
 * Its address, types and rate limit, changed in place: the secret and the delivery log stay.
 * @param {Screen} screen
 * @param {EventEndpoint} endpoint
 */
function changeForm(screen, endpoint) {
  const fields = endpointFields('change', endpoint);
  const save = submitting(async () => {
    try {
      const changed = await bff.eventEndpoints.update(screen.id, fields.read());
      screen.say(true, `Saved: events now go to ${changed.url}.`);
      await screen.refresh();
    } catch (error) {
      screen.say(false, `Could not change the endpoint. ${errorText(error)}`);
      fields.url.focus();
    }
  });
  return h(
    'form',
    { onsubmit: save },
    fields.elements,
    h(
      'p',
      { class: 'muted' },
      'Deliveries not made yet go to the new address, at the new rate; new types apply to events from now on. The signing secret stays the same.',
    ),
    h('button', { type: 'submit' }, 'Save the changes'),
  );
}

/**
 * What the test event did: delivered or not, the endpoint's answer and its body, how long it took.
 * @param {import('./merchant-sdk.js').Data<'/v1/event-endpoints/{id}/test', 'post'>} answer
 */
function testAnswer(answer) {
  return [
    h(
      'p',
      { class: answer.delivered ? 'good' : 'error' },
      answer.delivered ? 'Delivered: your endpoint accepted the test event.' : 'Not delivered.',
    ),
    h(
      'dl',
      {},
      h('dt', {}, 'Its answer'),
      h('dd', {}, answer.responseStatus === null ? 'None' : `HTTP ${answer.responseStatus}`),
      h('dt', {}, 'Its answer’s body'),
      h(
        'dd',
        {},
        answer.response === null
          ? 'None'
          : h('pre', {}, answer.response.body + (answer.response.bodyTruncated ? '…' : '')),
      ),
      h('dt', {}, 'Why not delivered'),
      h('dd', {}, answer.error ?? '—'),
      h('dt', {}, 'Took'),
      h('dd', {}, `${answer.durationMs} ms`),
      h('dt', {}, 'Event id'),
      h('dd', {}, h('code', {}, answer.event.id)),
    ),
  ];
}

/**
 * @param {Screen} screen
 * @param {HTMLButtonElement} button disabled while the test event goes
 */
async function test(screen, button) {
  const { tested } = screen.parts;
  button.disabled = true;
  tested.replaceChildren(h('p', { class: 'state' }, 'Sending a test event…'));
  try {
    tested.replaceChildren(...testAnswer(await bff.eventEndpoints.test(screen.id)));
  } catch (error) {
    tested.replaceChildren(
      h('p', { class: 'error', role: 'alert' }, `Could not send a test event. ${errorText(error)}`),
    );
  } finally {
    button.disabled = false;
  }
}

/**
 * @param {Screen} screen
 * @param {HTMLButtonElement} button where the focus goes once the new secret is copied
 */
async function rotate(screen, button) {
  // The old secret keeps signing for 24 hours: the question is worth asking all the same.
  if (!window.confirm('Make a new signing secret? The current one keeps working for 24 hours.')) return;
  try {
    const answer = await bff.eventEndpoints.rotateSecret(screen.id);
    screen.say(true, 'The endpoint has a new signing secret.');
    showSecretOnce(screen.parts.secretBox, 'The endpoint’s new signing secret', answer.secret, button);
  } catch (error) {
    screen.say(false, `Could not make a new secret. ${errorText(error)}`);
  }
  await screen.refresh();
}

/** @param {Screen} screen */
async function enable(screen) {
  try {
    await bff.eventEndpoints.enable(screen.id);
    screen.say(true, 'The endpoint is on again.');
  } catch (error) {
    screen.say(false, `Could not turn the endpoint on. ${errorText(error)}`);
  }
  await screen.refresh();
}

/** @param {Screen} screen */
async function remove(screen) {
  // Deleting also deletes the delivery log, and events stop reaching the address at once.
  if (!window.confirm('Delete this endpoint and its delivery log? Events stop reaching it at once.')) return;
  try {
    await bff.eventEndpoints.delete(screen.id);
    location.hash = '#/event-endpoints';
  } catch (error) {
    screen.say(false, `Could not delete the endpoint. ${errorText(error)}`);
  }
}

/**
 * The buttons acting on the endpoint; "Turn it on again" joins them while it is turned off.
 * @param {Screen} screen
 */
function actionButtons(screen) {
  const testButton = h('button', { type: 'button' }, 'Send a test event');
  testButton.addEventListener('click', () => void test(screen, testButton));
  const rotateButton = h('button', { type: 'button', class: 'secondary' }, 'Make a new signing secret');
  rotateButton.addEventListener('click', () => void rotate(screen, rotateButton));
  return [
    testButton,
    rotateButton,
    h(
      'button',
      { type: 'button', class: 'danger', onclick: () => void remove(screen) },
      'Delete this endpoint',
    ),
  ];
}

/**
 * @param {HTMLElement} main
 * @param {string} endpointId
 */
export function endpointScreen(main, endpointId) {
  const screen = endpointView(endpointId);
  const { parts } = screen;
  parts.actions.append(...actionButtons(screen));
  main.append(
    h('p', {}, h('a', { href: '#/event-endpoints' }, '← All endpoints')),
    parts.heading,
    screen.status,
    parts.about,
    section('Check it', parts.actions, parts.tested),
    parts.secretBox,
    section('Change it', parts.change),
    deliveriesSection(screen),
  );
  void screen.refresh();
  void loadDeliveries(screen);
}
