// One event endpoint's delivery log, on its screen (merchant-endpoint.js): newest first with "Show more",
// sending a delivery again and waiting for its new attempt. A delivery's own attempts are in
// merchant-delivery.js.
import { bff } from './api.js';
import { eventWords } from './event-types.js';
import { pagedInto } from './loading.js';
import { eventTypeText } from './merchant-endpoints.js';
import { errorText, h, plain, section, submitting, when } from './ui.js';

/** @typedef {import('./merchant-sdk.js').EventDelivery} EventDelivery */
/** @typedef {import('./merchant-endpoint.js').Screen} Screen the endpoint screen's */

/**
 * The endpoint's deliveries as the SDK pages them, 50 at a time.
 * @param {string} endpointId
 */
export const deliveriesOf = (endpointId) => bff.eventEndpoints.deliveries(endpointId, { limit: 50 });

/**
 * A delivery's last answer in words.
 * @param {EventDelivery} delivery
 */
const answerText = (delivery) =>
  delivery.lastResponseStatus !== null
    ? `HTTP ${delivery.lastResponseStatus}${delivery.lastError ? `: ${delivery.lastError}` : ''}`
    : (delivery.lastError ?? '—');

const DELIVERY_HEADERS = [
  'Event',
  'Event id',
  'Status',
  'Attempts',
  'Last attempt',
  'Last answer',
  'Next attempt',
  'Delivered',
  '',
  '',
];

/**
 * The log, newest first, with "Show more" for older deliveries. `screen` is the endpoint screen's (`id`,
 * `say`, its `deliveries` part and the `log` it pages).
 * @param {Screen} screen
 */
export function loadDeliveries(screen) {
  return pagedInto(screen.parts.deliveries, {
    what: 'its deliveries',
    load: (cursor) => screen.log.page(cursor),
    empty: 'No delivery yet: events this endpoint takes appear here as they are sent.',
    caption: 'Deliveries',
    headers: DELIVERY_HEADERS,
    row: (delivery) => deliveryRow(screen, delivery),
  });
}

/**
 * @param {Screen} screen
 * @param {EventDelivery} delivery
 */
function deliveryRow(screen, delivery) {
  return [
    eventTypeText(delivery.eventType),
    h('code', {}, delivery.eventId),
    plain('delivery', delivery.status),
    String(delivery.attempts),
    when(delivery.lastAttemptAt),
    answerText(delivery),
    when(delivery.nextAttemptAt),
    when(delivery.deliveredAt),
    h(
      'a',
      {
        href: `#/event-endpoints/${screen.id}/deliveries/${delivery.id}`,
        'aria-label': `Each attempt of “${eventWords(delivery.eventType)}”, event ${delivery.eventId}`,
      },
      'Each attempt',
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        'aria-label': `Send “${eventWords(delivery.eventType)}”, event ${delivery.eventId}, again`,
        onclick: () => void retry(screen, delivery),
      },
      'Send again',
    ),
  ];
}

/**
 * After a retry (run by the worker): asks each second, without redrawing, until that delivery has a new
 * attempt, for at most 30 s and only while this screen is shown, then draws the log again. A retry
 * refused again leaves it waiting for its next attempt, which may be hours away.
 * @param {Screen} screen
 * @param {EventDelivery} delivery as it was before the retry
 */
async function watch(screen, delivery) {
  const { deliveries } = screen.parts;
  for (let round = 0; round < 30 && deliveries.isConnected; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const answer = await screen.log.page().catch(() => null);
    const now = answer?.items.find((d) => d.id === delivery.id);
    if (!now || now.status !== 'PENDING' || now.attempts > delivery.attempts) break;
  }
  if (deliveries.isConnected) await loadDeliveries(screen);
}

/**
 * @param {Screen} screen
 * @param {EventDelivery} delivery
 */
async function retry(screen, delivery) {
  let sent = false;
  try {
    await bff.eventEndpoints.retryDelivery(screen.id, delivery.id);
    screen.say(true, `“${eventWords(delivery.eventType)}” is being sent again.`);
    sent = true;
  } catch (error) {
    screen.say(false, `Could not send the event again. ${errorText(error)}`);
  }
  await loadDeliveries(screen);
  if (sent) void watch(screen, delivery);
}

/**
 * The log's section: what it shows, its "Refresh" and the log.
 * @param {Screen} screen
 */
export function deliveriesSection(screen) {
  return section(
    'Deliveries',
    h(
      'p',
      { class: 'muted' },
      'Newest first, 50 at a time, with the last attempt’s answer. Open “Each attempt” to see what each attempt sent and what came back.',
    ),
    recoverForm(screen),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () => {
          screen.log = deliveriesOf(screen.id);
          void loadDeliveries(screen);
        },
      },
      'Refresh',
    ),
    screen.parts.deliveries,
  );
}

/** A time as a `datetime-local` field holds it: the browser's local time, to the minute. */
const localInput = (/** @type {Date} */ date) =>
  new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/**
 * Every delivery that failed for good since a time (its retries spent, or while the endpoint was off),
 * sent again at once: after an outage, what a developer does once the endpoint is mended. The api takes a
 * bounded batch a call and says when there is more, so this calls again until there is none.
 * @param {Screen} screen
 */
function recoverForm(screen) {
  const since = h('input', {
    id: 'recover-since',
    name: 'recover-since',
    type: 'datetime-local',
    required: true,
    value: localInput(new Date(Date.now() - 86_400_000)),
  });
  const recover = submitting(async () => {
    const from = new Date(since.value);
    let sent = 0;
    try {
      for (let more = true; more;) {
        const answer = await bff.eventEndpoints.recover(screen.id, { since: from.toISOString() });
        sent += answer.scheduled;
        more = answer.more;
      }
      screen.say(
        true,
        sent === 0
          ? 'No delivery failed for good since then.'
          : `${sent} failed ${sent === 1 ? 'delivery is' : 'deliveries are'} being sent again.`,
      );
    } catch (error) {
      screen.say(false, `Could not send the failed deliveries again. ${errorText(error)}`);
    }
    screen.log = deliveriesOf(screen.id);
    await loadDeliveries(screen);
  });
  return h(
    'form',
    { class: 'row', onsubmit: recover },
    h('label', { for: 'recover-since' }, 'Failed since'),
    since,
    h('button', { type: 'submit', class: 'secondary' }, 'Send again everything failed since then'),
  );
}
