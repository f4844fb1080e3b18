import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, EventReceiver, onboard, type Tenant, useStack } from './kit/index.js';

type Endpoint = { endpoint: { id: string }; secret: string };
type Tested = {
  event: { id: string; type: string; userId: null; data: { endpointId: string } };
  delivered: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
};

/**
 * `POST /v1/event-endpoints/{id}/test` (issue 41): a signed `endpoint.test` event sent to that endpoint
 * alone, now, once, answered with what the endpoint answered; recorded nowhere (no delivery log, no
 * events list) and sent whatever types the endpoint takes.
 */
describe('api: a test event for an endpoint', () => {
  const stack = useStack();
  let tenant: Tenant;
  const receivers: EventReceiver[] = [];

  beforeAll(async () => {
    tenant = await onboard(stack);
  });
  afterAll(async () => {
    for (const receiver of receivers) await receiver.stop();
  });

  async function endpointAt(receiver: EventReceiver, types: string[] = []): Promise<Endpoint> {
    return dataOf<Endpoint>(
      await tenant.client.post('/v1/event-endpoints', { url: receiver.url, types }),
      201,
    );
  }

  it('sends a signed endpoint.test to that endpoint alone and records nothing', async () => {
    const [receiver, other] = [await new EventReceiver().start(), await new EventReceiver().start()];
    receivers.push(receiver, other);
    // Subscribed to one other type only: a test goes to it all the same.
    const endpoint = await endpointAt(receiver, ['payment.completed']);
    await endpointAt(other);

    const tested = dataOf<Tested>(
      await tenant.client.post(`/v1/event-endpoints/${endpoint.endpoint.id}/test`, {}),
      200,
    );
    expect(tested).toMatchObject({ delivered: true, responseStatus: 200, error: null });
    expect(tested.event).toMatchObject({ type: 'endpoint.test', data: { endpointId: endpoint.endpoint.id } });
    expect(receiver.requests).toHaveLength(1);
    expect(other.requests).toHaveLength(0);
    const [request] = receiver.requests;
    const verified = new Webhook(endpoint.secret).verify(
      request.body,
      request.headers as Record<string, string>,
    );
    expect(verified).toEqual(tested.event);

    const deliveries = dataOf<unknown[]>(
      await tenant.client.get(`/v1/event-endpoints/${endpoint.endpoint.id}/deliveries`),
      200,
    );
    expect(deliveries).toHaveLength(0);
    const events = dataOf<{ id: string }[]>(await tenant.client.get('/v1/events?limit=100'), 200);
    expect(events.some((e) => e.id === tested.event.id)).toBe(false);
    // A filter on the type is refused: it is not a type events are listed or subscribed by.
    expect((await tenant.client.get('/v1/events?type=endpoint.test')).status).toBe(400);
    expect(
      (await tenant.client.post('/v1/event-endpoints', { url: receiver.url, types: ['endpoint.test'] }))
        .status,
    ).toBe(400);
  });

  it('answers what a failing endpoint said, and 404 for an endpoint that is not the merchant’s', async () => {
    const failing = await new EventReceiver().start();
    failing.otherwise = 503;
    receivers.push(failing);
    const endpoint = await endpointAt(failing);
    const tested = dataOf<Tested>(
      await tenant.client.post(`/v1/event-endpoints/${endpoint.endpoint.id}/test`, {}),
      200,
    );
    expect(tested).toMatchObject({ delivered: false, responseStatus: 503, error: 'answered 503' });
    // One attempt, no retry; the endpoint's health is left to real deliveries.
    expect(failing.requests).toHaveLength(1);
    const seen = dataOf<{ failingSince: string | null }>(
      await tenant.client.get(`/v1/event-endpoints/${endpoint.endpoint.id}`),
      200,
    );
    expect(seen.failingSince).toBeNull();

    const other = await onboard(stack);
    expect((await other.client.post(`/v1/event-endpoints/${endpoint.endpoint.id}/test`, {})).status).toBe(
      404,
    );
    for (const id of ['nope', '01a2190a-82b3-704a-bba7-508027bf8d97'])
      expect((await tenant.client.post(`/v1/event-endpoints/${id}/test`, {})).status, id).toBe(404);
  });
});
