import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import {
  createConsentRow,
  dataOf,
  EventReceiver,
  eventually,
  onboard,
  postUpstreamEvent,
  registeredSecret,
  type Tenant,
  tuned,
  upstreamEvent,
  useStack,
} from './kit/index.js';

interface Attempt {
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  request: { url: string; headers: Record<string, string>; body: string };
  response: { status: number; contentType: string | null; body: string; bodyTruncated: boolean } | null;
  error: string | null;
}
interface Delivery {
  id: string;
  eventId: string;
  status: string;
  attempts: number;
}
type Created = { endpoint: { id: string }; secret: string };

const SIGNED_HEADERS = [
  'content-type',
  'user-agent',
  'webhook-id',
  'webhook-signature',
  'webhook-timestamp',
] as const;

/**
 * Issue 43: a delivery's attempt log. Each attempt the worker makes is kept as it went (the request with
 * its signed headers and body, the answer's status and the start of its body, or the error), numbered as
 * the delivery counts it, a manual retry continuing the count; another merchant sees none of it.
 */
describe('events: each attempt of a delivery, as sent and as answered', () => {
  // The worker relays and sweeps every event of its database: this file has one of its own.
  const stack = useStack({
    ownDatabase: 'attempts',
    worker: true,
    overrides: { ...tuned({ eventsSweepEverySeconds: 1, eventDeliveryBackoffSeconds: 1 }) },
  });
  let tenant: Tenant;
  let prisma: PrismaService;
  let upstreamSecret: string;
  const receivers: EventReceiver[] = [];

  beforeAll(async () => {
    prisma = stack.api.app.get(PrismaService);
    tenant = await onboard(stack);
    upstreamSecret = await registeredSecret(stack);
  });
  afterAll(async () => {
    for (const receiver of receivers) await receiver.stop();
  });

  const receiver = async (script: number[] = []) => {
    const started = await new EventReceiver(script).start();
    receivers.push(started);
    return started;
  };

  async function subscribe(t: Tenant, url: string): Promise<Created> {
    // Every event so far relayed first, so the endpoint only receives what follows.
    await eventually('outbox relayed', async () =>
      (await prisma.merchantEvent.count({ where: { streamSeq: null } })) === 0 ? true : undefined,
    );
    return dataOf<Created>(
      await t.client.post('/v1/event-endpoints', { url, types: ['consent.revoked'] }),
      201,
    );
  }

  /** The bank revokes a consent of the tenant's user: one consent.revoked event for its endpoints. */
  async function revokeAConsent(t: Tenant) {
    const consent = await createConsentRow(prisma, { id: t.userId, merchantId: t.merchant.merchant.id });
    const revoked = upstreamEvent('consent.state.revoked', { consentId: consent.upstreamConsentId });
    expect((await postUpstreamEvent(stack, revoked, upstreamSecret)).status).toBe(200);
  }

  const deliveriesOf = async (t: Tenant, endpointId: string) =>
    dataOf<Delivery[]>(await t.client.get(`/v1/event-endpoints/${endpointId}/deliveries`), 200);

  const attemptsPath = (endpointId: string, deliveryId: string) =>
    `/v1/event-endpoints/${endpointId}/deliveries/${deliveryId}/attempts`;

  const attemptsOf = async (t: Tenant, endpointId: string, deliveryId: string) =>
    dataOf<Attempt[]>(await t.client.get(attemptsPath(endpointId, deliveryId)), 200);

  it('logs a failed attempt, the successful one and a manual one, each as sent and as answered', async () => {
    const failsOnce = await receiver([500]);
    const dead = await receiver();
    const deadUrl = dead.url;
    await dead.stop();
    receivers.splice(receivers.indexOf(dead), 1);
    const answering = await subscribe(tenant, failsOnce.url);
    const unreachable = await subscribe(tenant, deadUrl);
    await revokeAConsent(tenant);

    const [delivery] = await eventually('delivered on the second attempt', async () => {
      const found = await deliveriesOf(tenant, answering.endpoint.id);
      return found[0]?.status === 'SUCCEEDED' ? found : undefined;
    });
    expect(delivery.attempts).toBe(2);
    const attempts = await attemptsOf(tenant, answering.endpoint.id, delivery.id);
    expect(attempts.map((a) => a.attempt)).toEqual([2, 1]);
    expect(attempts.map((a) => [a.response?.status, a.error])).toEqual([
      [200, null],
      [500, 'answered 500'],
    ]);
    expect(attempts[1].response).toEqual({
      status: 500,
      contentType: 'text/plain',
      body: 'no',
      bodyTruncated: false,
    });
    expect(attempts[0].response).toMatchObject({ status: 200, body: 'ok', bodyTruncated: false });
    // What the log says was sent is what the endpoint received, byte for byte, signed with its secret.
    expect(failsOnce.requests).toHaveLength(2);
    for (const [i, attempt] of [...attempts].reverse().entries()) {
      const received = failsOnce.requests[i];
      expect(attempt.request.url).toBe(failsOnce.url);
      expect(attempt.request.body).toBe(received.body);
      expect(Object.keys(attempt.request.headers).sort()).toEqual([...SIGNED_HEADERS]);
      for (const name of SIGNED_HEADERS) expect(attempt.request.headers[name]).toBe(received.headers[name]);
      expect(new Webhook(answering.secret).verify(attempt.request.body, attempt.request.headers)).toEqual(
        JSON.parse(received.body),
      );
      expect(JSON.parse(attempt.request.body)).toMatchObject({
        id: delivery.eventId,
        type: 'consent.revoked',
      });
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(Date.parse(attempts[0].attemptedAt)).toBeGreaterThanOrEqual(Date.parse(attempts[1].attemptedAt));

    // Sent again by hand: attempt 3, the same event, the count carried on.
    expect(
      (
        await tenant.client.post(
          `/v1/event-endpoints/${answering.endpoint.id}/deliveries/${delivery.id}/retry`,
        )
      ).status,
    ).toBe(202);
    const again = await eventually('the manual attempt logged', async () => {
      const found = await attemptsOf(tenant, answering.endpoint.id, delivery.id);
      return found.length === 3 ? found : undefined;
    });
    expect(again.map((a) => [a.attempt, a.response?.status])).toEqual([
      [3, 200],
      [2, 200],
      [1, 500],
    ]);
    expect(again[0].request.body).toBe(attempts[0].request.body);
    expect((await deliveriesOf(tenant, answering.endpoint.id))[0].attempts).toBe(3);

    // Paged as the deliveries are: newest first, the cursor in meta and links.
    const first = await tenant.client.get(`${attemptsPath(answering.endpoint.id, delivery.id)}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.data.map((a: Attempt) => a.attempt)).toEqual([3, 2]);
    expect(first.body.meta).toMatchObject({ count: 2, nextCursor: expect.any(String) });
    const second = await tenant.client.get(first.body.links.next as string);
    expect(second.body.data.map((a: Attempt) => a.attempt)).toEqual([1]);
    expect(second.body.meta.nextCursor).toBeNull();

    // No answer at all: the error says why, and there is no response.
    const [lost] = await eventually('the unreachable endpoint tried', async () => {
      const found = await deliveriesOf(tenant, unreachable.endpoint.id);
      return found[0]?.attempts > 0 ? found : undefined;
    });
    const [tried] = await attemptsOf(tenant, unreachable.endpoint.id, lost.id);
    // Newest first: retries may have followed since the delivery was read.
    expect(tried).toMatchObject({ response: null, request: { url: deadUrl } });
    expect(tried.attempt).toBeGreaterThanOrEqual(lost.attempts);
    expect(tried.error).toMatch(/ECONNREFUSED/);
    // Deleted, the endpoint takes its deliveries and their attempts with it (and stops the retries).
    expect((await tenant.client.delete(`/v1/event-endpoints/${unreachable.endpoint.id}`)).status).toBe(204);
    expect(await prisma.eventDeliveryAttempt.count({ where: { deliveryId: lost.id } })).toBe(0);
  });

  it('keeps the first 4 KiB of a long answer, flagged as cut, without splitting a character', async () => {
    const verbose = await receiver();
    // 1 + 2 × 5000 bytes: byte 4096 is the first half of an é, which is left out rather than mangled.
    verbose.answer = () => `x${'é'.repeat(5_000)}`;
    const created = await subscribe(tenant, verbose.url);
    await revokeAConsent(tenant);
    const [delivery] = await eventually('delivered', async () => {
      const found = await deliveriesOf(tenant, created.endpoint.id);
      return found[0]?.status === 'SUCCEEDED' ? found : undefined;
    });
    const [attempt] = await attemptsOf(tenant, created.endpoint.id, delivery.id);
    expect(attempt.response).toEqual({
      status: 200,
      contentType: 'text/plain',
      body: `x${'é'.repeat(2_047)}`,
      bodyTruncated: true,
    });

    // The test event answers the same detail, and is logged nowhere.
    const tested = dataOf<{
      event: { id: string };
      request: Attempt['request'];
      response: Attempt['response'];
    }>(await tenant.client.post(`/v1/event-endpoints/${created.endpoint.id}/test`, {}), 200);
    expect(tested.response).toMatchObject({ status: 200, bodyTruncated: true });
    expect(tested.request.headers['webhook-id']).toBe(tested.event.id);
    expect(await attemptsOf(tenant, created.endpoint.id, delivery.id)).toHaveLength(1);
  });

  it('answers 404 for another merchant’s endpoint or delivery, and for ids that are none', async () => {
    const ok = await receiver();
    const created = await subscribe(tenant, ok.url);
    await revokeAConsent(tenant);
    const [delivery] = await eventually('delivered', async () => {
      const found = await deliveriesOf(tenant, created.endpoint.id);
      return found[0]?.status === 'SUCCEEDED' ? found : undefined;
    });
    const other = await onboard(stack);
    const otherEndpoint = await subscribe(other, ok.url);
    const missing = [
      [other, attemptsPath(created.endpoint.id, delivery.id)],
      // Its own endpoint, the tenant's delivery: a delivery belongs to one endpoint.
      [other, attemptsPath(otherEndpoint.endpoint.id, delivery.id)],
      [tenant, attemptsPath(created.endpoint.id, '01a2190a-82b3-704a-bba7-508027bf8d97')],
      [tenant, attemptsPath(created.endpoint.id, 'nope')],
      [tenant, attemptsPath('nope', delivery.id)],
    ] as const;
    for (const [who, path] of missing) {
      const response = await who.client.get(path);
      expect([response.status, response.body.error?.code], path).toEqual([404, 'NOT_FOUND']);
    }
    for (const query of [
      'limit=0',
      'limit=101',
      'cursor=***',
      `cursor=${Buffer.from('0').toString('base64url')}`,
    ]) {
      const response = await tenant.client.get(`${attemptsPath(created.endpoint.id, delivery.id)}?${query}`);
      expect([response.status, response.body.error?.code], query).toEqual([400, 'VALIDATION_FAILED']);
    }
  });
});
