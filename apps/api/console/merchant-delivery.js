// One delivery of an event to an endpoint: each attempt as sent and as answered, and sending it again.
import { bff } from './api.js';
import { eventWords } from './event-types.js';
import { loadInto } from './loading.js';
import { errorText, h, screenOf, section, when } from './ui.js';

/** @typedef {import('./merchant-sdk.js').EventDeliveryAttempt} Attempt */

/**
 * Headers as a list of name and value, in the order sent.
 * @param {Attempt['request']['headers']} headers
 */
const headersList = (headers) =>
  h(
    'dl',
    {},
    Object.entries(headers).flatMap(([name, value]) => [
      h('dt', {}, h('code', {}, name)),
      h('dd', {}, h('code', { class: 'mono' }, value)),
    ]),
  );

/**
 * An attempt's outcome in a few words: the answer's status, or why there was none.
 * @param {Attempt} attempt
 */
const outcomeText = (attempt) =>
  attempt.response
    ? `HTTP ${attempt.response.status}${attempt.error ? `: ${attempt.error}` : ''}`
    : (attempt.error ?? 'No answer');

/**
 * One attempt: a summary line that opens onto the request and the answer.
 * @param {Attempt} attempt
 * @param {boolean} open
 */
function attemptDetails(attempt, open) {
  const { request, response } = attempt;
  return h(
    'details',
    { class: 'attempt', open },
    h(
      'summary',
      {},
      `Attempt ${attempt.attempt}, ${when(attempt.attemptedAt)}: ${outcomeText(attempt)} (${attempt.durationMs} ms)`,
    ),
    h(
      'dl',
      {},
      h('dt', {}, 'When'),
      h('dd', {}, when(attempt.attemptedAt)),
      h('dt', {}, 'Took'),
      h('dd', {}, `${attempt.durationMs} ms`),
      h('dt', {}, 'Sent to'),
      h('dd', {}, h('code', {}, request.url)),
      h('dt', {}, 'Answer'),
      h('dd', {}, response ? `HTTP ${response.status}` : 'None'),
      h('dt', {}, 'Why not delivered'),
      h('dd', {}, attempt.error ?? '—'),
    ),
    h('h3', {}, 'Request headers'),
    headersList(request.headers),
    h('h3', {}, 'Request body, as sent and signed'),
    h('pre', { class: 'mono' }, request.body),
    h('h3', {}, 'Answer body'),
    response
      ? [
          h(
            'p',
            { class: 'muted' },
            `${response.contentType ? `Type ${response.contentType}. ` : ''}${
              response.bodyTruncated ? 'Only its start is kept: the rest is not shown.' : 'Whole.'
            }`,
          ),
          response.body ? h('pre', { class: 'mono' }, response.body) : h('p', { class: 'state' }, 'Empty.'),
        ]
      : h('p', { class: 'state' }, 'No answer came.'),
  );
}

/**
 * What the screen's parts share: the delivery's ids, the status line (`say`), the attempts, the newest
 * attempt drawn (`shown`, what "Send again" waits to see passed) and `refresh`, which draws them again.
 * @param {string} endpointId
 * @param {string} deliveryId
 */
function deliveryFields(endpointId, deliveryId) {
  return {
    endpointId,
    deliveryId,
    heading: h('h1', {}, 'Attempts of a delivery'),
    attempts: h('div', { id: 'attempts' }),
    shown: 0,
  };
}

/** @typedef {import('./ui.js').ScreenWith<ReturnType<typeof deliveryFields>>} Screen */

/**
 * @param {string} endpointId
 * @param {string} deliveryId
 */
function deliveryView(endpointId, deliveryId) {
  return screenOf(deliveryFields(endpointId, deliveryId), load);
}

/**
 * @param {Screen} screen
 * @param {string} [cursor] an older page; none: the newest
 */
const pageOf = (screen, cursor) =>
  bff.eventEndpoints.attempts(screen.endpointId, screen.deliveryId, { limit: 20 }).page(cursor);

/**
 * A page of attempts (`cursor`: an older page), the newest open.
 * @param {Screen} screen
 * @param {{ cursor?: string }} [options]
 */
function load(screen, { cursor } = {}) {
  return loadInto(screen.attempts, {
    what: 'its attempts',
    load: () => pageOf(screen, cursor),
    render: (answer) => {
      const [first] = answer.items;
      if (first && !cursor) {
        const event = parseEvent(first.request.body);
        if (event) screen.heading.textContent = `Attempts of “${eventWords(event.type)}”, event ${event.id}`;
      }
      if (!cursor) screen.shown = first?.attempt ?? 0;
      return attemptsPage(screen, answer, cursor);
    },
  });
}

/**
 * @param {Screen} screen
 * @param {import('./merchant-sdk.js').Page<Attempt>} answer
 * @param {string | undefined} cursor the page's, undefined for the newest
 */
function attemptsPage(screen, answer, cursor) {
  const { nextCursor } = answer;
  return answer.items.length === 0
    ? h('p', { class: 'state' }, cursor ? 'No older attempt.' : 'No attempt yet: it has not been sent.')
    : [
        ...answer.items.map((attempt, i) => attemptDetails(attempt, !cursor && i === 0)),
        nextCursor
          ? h(
              'button',
              {
                type: 'button',
                class: 'secondary',
                onclick: () => void load(screen, { cursor: nextCursor }),
              },
              'Older attempts',
            )
          : h('p', { class: 'muted' }, 'That is all of them.'),
      ];
}

/**
 * After "Send again": asks each second, without redrawing (open attempts stay open), until a new attempt
 * is logged, for at most 30 s and only while this screen is shown, then draws the attempts again.
 * @param {Screen} screen
 * @param {number} before the newest attempt drawn when it was sent again
 */
async function watch(screen, before) {
  for (let round = 0; round < 30 && screen.attempts.isConnected; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const answer = await pageOf(screen).catch(() => null);
    if ((answer?.items[0]?.attempt ?? 0) > before) break;
  }
  if (screen.attempts.isConnected) await screen.refresh();
}

/**
 * @param {Screen} screen
 * @param {HTMLButtonElement} button disabled while it is asked
 */
async function retry(screen, button) {
  button.disabled = true;
  const before = screen.shown;
  try {
    await bff.eventEndpoints.retryDelivery(screen.endpointId, screen.deliveryId);
    screen.say(true, 'The event is being sent again: its attempt appears here once made.');
    void watch(screen, before);
  } catch (error) {
    screen.say(false, `Could not send the event again. ${errorText(error)}`);
  } finally {
    button.disabled = false;
  }
}

/**
 * One delivery of an endpoint: each attempt, newest first, and sending it again.
 * @param {HTMLElement} main
 * @param {string} endpointId
 * @param {string} deliveryId
 */
export function deliveryScreen(main, endpointId, deliveryId) {
  const screen = deliveryView(endpointId, deliveryId);
  const again = h('button', { type: 'button' }, 'Send again');
  again.addEventListener('click', () => void retry(screen, again));
  main.append(
    h('p', {}, h('a', { href: `#/event-endpoints/${endpointId}` }, '← The endpoint and its deliveries')),
    screen.heading,
    h(
      'p',
      {},
      'Each attempt as it went, newest first: the request sent (its signed headers and body) and what came back, of which the start is kept. They are kept as long as the delivery: until its event is older than the api keeps events, or the endpoint is deleted.',
    ),
    screen.status,
    h(
      'div',
      { class: 'row' },
      again,
      h('button', { type: 'button', class: 'secondary', onclick: () => void screen.refresh() }, 'Refresh'),
    ),
    section('Attempts', screen.attempts),
  );
  void screen.refresh();
}

/**
 * The event a request body carries, if it is one.
 * @param {string} body
 * @returns {{ type: string, id: string } | null}
 */
function parseEvent(body) {
  try {
    const event = JSON.parse(body);
    return typeof event?.type === 'string' && typeof event?.id === 'string' ? event : null;
  } catch {
    return null;
  }
}
