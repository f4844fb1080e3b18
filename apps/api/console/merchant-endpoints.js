// A merchant's event endpoints: the list, adding one (its signing secret shown once), and for one
// endpoint a test event, a new secret (shown once), turning it back on, and its delivery log with retries;
// for one delivery, each attempt as sent and as answered.
import { bff } from './api.js';
import { endpointFields } from './endpoint-fields.js';
import {
  announce,
  errorText,
  h,
  loadInto,
  pagedInto,
  plain,
  section,
  submitting,
  table,
  when,
} from './ui.js';

/** The plain words, then the API's own name of the type, shown as such. */
export const eventTypeText = (type) =>
  h('span', {}, `${plain('eventType', type)} `, h('code', { class: 'muted' }, type));

const typesText = (types) =>
  types.length === 0 ? 'Every type' : types.map((type) => plain('eventType', type)).join(', ');

const health = (endpoint) =>
  endpoint.disabledAt
    ? `Turned off ${when(endpoint.disabledAt)}${endpoint.disabledReason ? `: ${endpoint.disabledReason}` : ''}`
    : endpoint.failingSince
      ? `Failing since ${when(endpoint.failingSince)}`
      : 'Working';

/**
 * A signing secret, this once: it is in no list or later answer, and leaves the page when done. `box` is
 * the section it is shown in; `back` takes the focus afterwards.
 */
function showSecretOnce(box, title, secret, back) {
  const done = h('button', { type: 'button', class: 'secondary' }, 'I have copied it');
  done.addEventListener('click', () => {
    box.replaceChildren();
    box.hidden = true;
    back.focus();
  });
  box.replaceChildren(
    h('h2', {}, title),
    h(
      'p',
      {},
      'Copy it now: it is shown only this once. Your server checks each delivery with it (the standardwebhooks library does).',
    ),
    h('label', { for: 'new-secret-value' }, 'Signing secret'),
    h('input', { id: 'new-secret-value', readonly: true, value: secret, class: 'mono' }),
    h('p', {}, done),
  );
  box.hidden = false;
  box.querySelector('input').select();
  announce(`${title}. Copy it now: it is shown only this once.`);
}

export function endpointsScreen(main) {
  const list = h('div', { id: 'endpoints-list' });
  const secretBox = h('section', { id: 'new-secret', class: 'new-key', hidden: true, 'aria-live': 'polite' });
  const status = h('p', { role: 'status' });
  const fields = endpointFields('endpoint');

  const refresh = () =>
    loadInto(list, {
      what: 'your event endpoints',
      load: () => bff.eventEndpoints.list(),
      empty: 'No endpoint yet: events reach your servers only once you add one.',
      render: (endpoints) =>
        table(
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
        ),
    });

  const form = h(
    'form',
    {
      onsubmit: submitting(async () => {
        try {
          const created = await bff.eventEndpoints.create(fields.read());
          fields.clear();
          status.className = 'good';
          status.textContent = `${created.endpoint.url} is added.`;
          showSecretOnce(secretBox, 'The new endpoint’s signing secret', created.secret, fields.url);
        } catch (error) {
          status.className = 'error';
          status.textContent = `Could not add the endpoint. ${errorText(error)}`;
        }
        await refresh();
      }),
    },
    fields.elements,
    h('button', { type: 'submit' }, 'Add the endpoint'),
  );

  main.append(
    h('h1', {}, 'Event endpoints'),
    h(
      'p',
      {},
      'The addresses on your servers the api sends events to, each signed with the endpoint’s secret. A delivery that fails is tried again for 72 hours.',
    ),
    status,
    secretBox,
    section('Add an endpoint', form),
    section('Your endpoints', list),
  );
  void refresh();
}

/** A delivery's last answer in words. */
const answerText = (delivery) =>
  delivery.lastResponseStatus !== null
    ? `HTTP ${delivery.lastResponseStatus}${delivery.lastError ? `: ${delivery.lastError}` : ''}`
    : (delivery.lastError ?? '—');

export function endpointScreen(main, endpointId) {
  const heading = h('h1', {}, 'Event endpoint');
  const about = h('div', { id: 'endpoint-about' });
  const status = h('p', { role: 'status' });
  const tested = h('div', { id: 'test-result', 'aria-live': 'polite' });
  const secretBox = h('section', { id: 'new-secret', class: 'new-key', hidden: true, 'aria-live': 'polite' });
  const deliveries = h('div', { id: 'deliveries' });
  const actions = h('div', { class: 'row' });
  const change = h('div', { id: 'endpoint-change' });

  const say = (good, text) => {
    status.className = good ? 'good' : 'error';
    status.textContent = text;
  };

  const loadEndpoint = () =>
    loadInto(about, {
      what: 'the endpoint',
      load: () => bff.eventEndpoints.get(endpointId),
      render: (endpoint) => {
        heading.textContent = `Event endpoint ${endpoint.url}`;
        // Filled in once: a later reload (after a rotation, say) must not wipe what is being typed.
        if (!change.firstChild) change.append(changeForm(endpoint));
        actions.querySelector('.enable')?.remove();
        if (endpoint.disabledAt)
          actions.append(
            h(
              'button',
              { type: 'button', class: 'secondary enable', onclick: () => void enable() },
              'Turn it on again',
            ),
          );
        return h(
          'dl',
          {},
          h('dt', {}, 'Events'),
          h('dd', {}, typesText(endpoint.types)),
          h('dt', {}, 'State'),
          h('dd', {}, health(endpoint)),
          h('dt', {}, 'Previous secret'),
          h(
            'dd',
            {},
            endpoint.previousSecretExpiresAt
              ? `Still signed with until ${when(endpoint.previousSecretExpiresAt)}`
              : 'None',
          ),
        );
      },
    });

  /** Its address and types, changed in place: the secret and the delivery log stay. */
  function changeForm(endpoint) {
    const fields = endpointFields('change', endpoint);
    const form = h(
      'form',
      {
        onsubmit: submitting(async () => {
          try {
            const changed = await bff.eventEndpoints.update(endpointId, fields.read());
            say(true, `Saved: events now go to ${changed.url}.`);
            await loadEndpoint();
          } catch (error) {
            say(false, `Could not change the endpoint. ${errorText(error)}`);
            fields.url.focus();
          }
        }),
      },
      fields.elements,
      h(
        'p',
        { class: 'muted' },
        'Deliveries not made yet go to the new address; new types apply to events from now on. The signing secret stays the same.',
      ),
      h('button', { type: 'submit' }, 'Save the changes'),
    );
    return form;
  }

  let list = bff.eventEndpoints.deliveries(endpointId, { limit: 50 });

  /** The log, newest first, with "Show more" for older deliveries. */
  const loadDeliveries = () =>
    pagedInto(deliveries, {
      what: 'its deliveries',
      load: (cursor) => list.page(cursor),
      empty: 'No delivery yet: events this endpoint takes appear here as they are sent.',
      caption: 'Deliveries',
      headers: DELIVERY_HEADERS,
      row: deliveryRow,
    });

  /**
   * After a retry (run by the worker): asks each second, without redrawing, until that delivery has a new
   * attempt, for at most 30 s and only while this screen is shown, then draws the log again. A retry
   * refused again leaves it waiting for its next attempt, which may be hours away.
   */
  async function watch(delivery) {
    for (let round = 0; round < 30 && deliveries.isConnected; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const answer = await list.page().catch(() => null);
      const now = answer?.items.find((d) => d.id === delivery.id);
      if (!now || now.status !== 'PENDING' || now.attempts > delivery.attempts) break;
    }
    if (deliveries.isConnected) await loadDeliveries();
  }

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
  const deliveryRow = (delivery) => [
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
        href: `#/event-endpoints/${endpointId}/deliveries/${delivery.id}`,
        'aria-label': `Each attempt of “${plain('eventType', delivery.eventType)}”, event ${delivery.eventId}`,
      },
      'Each attempt',
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        'aria-label': `Send “${plain('eventType', delivery.eventType)}”, event ${delivery.eventId}, again`,
        onclick: () => void retry(delivery),
      },
      'Send again',
    ),
  ];

  async function retry(delivery) {
    let sent = false;
    try {
      await bff.eventEndpoints.retryDelivery(endpointId, delivery.id);
      say(true, `“${plain('eventType', delivery.eventType)}” is being sent again.`);
      sent = true;
    } catch (error) {
      say(false, `Could not send the event again. ${errorText(error)}`);
    }
    await loadDeliveries();
    if (sent) void watch(delivery);
  }

  async function test(button) {
    button.disabled = true;
    tested.replaceChildren(h('p', { class: 'state' }, 'Sending a test event…'));
    try {
      const answer = await bff.eventEndpoints.test(endpointId);
      tested.replaceChildren(
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
          h('dt', {}, 'Why not delivered'),
          h('dd', {}, answer.error ?? '—'),
          h('dt', {}, 'Took'),
          h('dd', {}, `${answer.durationMs} ms`),
          h('dt', {}, 'Event id'),
          h('dd', {}, h('code', {}, answer.event.id)),
        ),
      );
    } catch (error) {
      tested.replaceChildren(
        h('p', { class: 'error', role: 'alert' }, `Could not send a test event. ${errorText(error)}`),
      );
    } finally {
      button.disabled = false;
    }
  }

  async function rotate(button) {
    // The old secret keeps signing for 24 hours: the question is worth asking all the same.
    if (!window.confirm('Make a new signing secret? The current one keeps working for 24 hours.')) return;
    try {
      const answer = await bff.eventEndpoints.rotateSecret(endpointId);
      say(true, 'The endpoint has a new signing secret.');
      showSecretOnce(secretBox, 'The endpoint’s new signing secret', answer.secret, button);
    } catch (error) {
      say(false, `Could not make a new secret. ${errorText(error)}`);
    }
    await loadEndpoint();
  }

  async function enable() {
    try {
      await bff.eventEndpoints.enable(endpointId);
      say(true, 'The endpoint is on again.');
    } catch (error) {
      say(false, `Could not turn the endpoint on. ${errorText(error)}`);
    }
    await loadEndpoint();
  }

  async function remove() {
    // Deleting also deletes the delivery log, and events stop reaching the address at once.
    if (!window.confirm('Delete this endpoint and its delivery log? Events stop reaching it at once.'))
      return;
    try {
      await bff.eventEndpoints.delete(endpointId);
      location.hash = '#/event-endpoints';
    } catch (error) {
      say(false, `Could not delete the endpoint. ${errorText(error)}`);
    }
  }

  const testButton = h('button', { type: 'button' }, 'Send a test event');
  testButton.addEventListener('click', () => void test(testButton));
  const rotateButton = h('button', { type: 'button', class: 'secondary' }, 'Make a new signing secret');
  rotateButton.addEventListener('click', () => void rotate(rotateButton));
  actions.append(
    testButton,
    rotateButton,
    h('button', { type: 'button', class: 'danger', onclick: () => void remove() }, 'Delete this endpoint'),
  );

  main.append(
    h('p', {}, h('a', { href: '#/event-endpoints' }, '← All endpoints')),
    heading,
    status,
    about,
    section('Check it', actions, tested),
    secretBox,
    section('Change it', change),
    section(
      'Deliveries',
      h(
        'p',
        { class: 'muted' },
        'Newest first, 50 at a time, with the last attempt’s answer. Open “Each attempt” to see what each attempt sent and what came back.',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: () => {
            list = bff.eventEndpoints.deliveries(endpointId, { limit: 50 });
            void loadDeliveries();
          },
        },
        'Refresh',
      ),
      deliveries,
    ),
  );
  void loadEndpoint();
  void loadDeliveries();
}
