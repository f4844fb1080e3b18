import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabasePool } from '#libs/database';
import {
  type DeliveryPolicy,
  ENDPOINT_RATE_LIMIT,
  EventDeliveryService,
  MerchantEventRepository,
  OutboxRelayService,
  THROTTLE_WINDOW_MS,
} from '#libs/domain/events';
import { dependencyFailureOf } from '#libs/errors';
import {
  dataOf,
  type EventReceiver,
  EventReceiver as Receiver,
  eventually,
  onboard,
  spawnWorker,
  type Stack,
  stackProcessEnv,
  startStack,
  type Tenant,
  uniqueQueuePrefix,
  useReceiver,
  useStack,
  WAIT,
  type WorkerProcess,
} from './kit/index.js';
import { type PrivateRedis, startPrivateRedis } from './kit/private-services.mjs';

const BURST = 40;
const RATE = 5;

interface Endpoint {
  id: string;
  url: string;
  rateLimit: number | null;
}
interface Delivery {
  id: string;
  status: string;
  attempts: number;
}

/** `count` events of the tenant's merchant, recorded in one transaction as a change records its own. */
async function recordBurst(stack: Stack, tenant: Tenant, count: number): Promise<void> {
  const events = stack.api.app.get(MerchantEventRepository);
  await stack.api.app.get(DatabasePool).transaction((client) =>
    events.record(
      client,
      Array.from({ length: count }, (_, i) => ({
        merchantId: tenant.merchant.merchant.id,
        userId: tenant.userId,
        type: 'consent.revoked' as const,
        data: {
          consentId: `throttle-${i}`,
          kind: 'ACCOUNT',
          status: 'REVOKED',
          institutionId: 'sandbox-redirect',
          reason: 'CONSENT_REVOKED',
        },
      })),
    ),
  );
}

/** The event ids a receiver accepted, in arrival order, and when each arrived. */
const arrivals = (receiver: EventReceiver) =>
  receiver.requests
    .filter((r) => r.status < 300)
    .map((r) => ({ id: (JSON.parse(r.body) as { id: string }).id, at: r.arrivedAt }))
    .sort((a, b) => a.at - b.at);

/**
 * Issue 61: an endpoint's rate limit (Svix's throttle). Two worker processes deliver a burst to an
 * endpoint limited to RATE a second and to an unlimited one of the same merchant: the limited one never
 * receives more than RATE in a second, every event reaches each endpoint once, with one attempt each
 * (a wait for a turn is no attempt), and the unlimited one is not held back by the other.
 */
describe('events: a per-endpoint delivery rate limit, across two workers', () => {
  // The workers relay and deliver every event of their database: this file has one, and queues, its own.
  const stack = useStack({
    ownDatabase: 'throttle',
    overrides: { QUEUE_PREFIX: uniqueQueuePrefix('throttle') },
  });
  const limited = useReceiver();
  const unlimited = useReceiver();
  const workers: WorkerProcess[] = [];
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await onboard(stack);
    workers.push(spawnWorker(stackProcessEnv(stack)), spawnWorker(stackProcessEnv(stack)));
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it('takes a rate limit from 1 to 1000, or null, on creation and change, and refuses anything else', async () => {
    const created = dataOf<{ endpoint: Endpoint }>(
      await tenant.client.post('/v1/event-endpoints', { url: limited.url, rateLimit: 7 }),
      201,
    ).endpoint;
    expect(created.rateLimit).toBe(7);
    const path = `/v1/event-endpoints/${created.id}`;
    expect(dataOf<Endpoint>(await tenant.client.get(path)).rateLimit).toBe(7);
    // Only the rate limit: a change of its own. Absent leaves it; null lifts it.
    expect(dataOf<Endpoint>(await tenant.client.patch(path, { rateLimit: 1_000 })).rateLimit).toBe(1_000);
    expect(dataOf<Endpoint>(await tenant.client.patch(path, { types: [] })).rateLimit).toBe(1_000);
    expect(dataOf<Endpoint>(await tenant.client.patch(path, { rateLimit: null })).rateLimit).toBeNull();
    const listed = dataOf<Endpoint[]>(await tenant.client.get('/v1/event-endpoints'));
    expect(listed.find((e) => e.id === created.id)?.rateLimit).toBeNull();
    const unset = dataOf<{ endpoint: Endpoint }>(
      await tenant.client.post('/v1/event-endpoints', { url: unlimited.url, rateLimit: null }),
      201,
    ).endpoint;
    expect(unset.rateLimit).toBeNull();

    for (const rateLimit of [0, -1, 1.5, '5', 100_000, ENDPOINT_RATE_LIMIT.max + 1, true, [5]]) {
      for (const refused of [
        await tenant.client.post('/v1/event-endpoints', { url: limited.url, rateLimit }),
        await tenant.client.patch(path, { rateLimit }),
      ]) {
        expect([refused.status, refused.body.error.code], JSON.stringify(rateLimit)).toEqual([
          400,
          'VALIDATION_FAILED',
        ]);
        expect(refused.body.error.details).toEqual([
          {
            field: 'rateLimit',
            issue: `rateLimit must be a whole number of deliveries per second from ${ENDPOINT_RATE_LIMIT.min} to ${ENDPOINT_RATE_LIMIT.max}, or null for no limit`,
          },
        ]);
      }
    }
    await tenant.client.delete(path);
    await tenant.client.delete(`/v1/event-endpoints/${unset.id}`);
  });

  it('serves the window it enforces in the delivery policy', async () => {
    const policy = dataOf<DeliveryPolicy>(await tenant.client.get('/v1/event-delivery-policy'));
    expect(policy.throttleWindowMs).toBe(THROTTLE_WINDOW_MS);
  });

  it(`delivers a burst of ${BURST} at most ${RATE} a second, each once, without slowing another endpoint`, async () => {
    const slow = dataOf<{ endpoint: Endpoint }>(
      await tenant.client.post('/v1/event-endpoints', { url: limited.url, rateLimit: RATE }),
      201,
    ).endpoint;
    const fast = dataOf<{ endpoint: Endpoint }>(
      await tenant.client.post('/v1/event-endpoints', { url: unlimited.url }),
      201,
    ).endpoint;
    await recordBurst(stack, tenant, BURST);

    await eventually(
      'every event at both endpoints',
      () => (arrivals(limited).length >= BURST && arrivals(unlimited).length >= BURST ? true : undefined),
      WAIT.recovery,
    );
    const slowly = arrivals(limited);
    const quickly = arrivals(unlimited);
    // Once each: no event twice, none missing, the same events at both.
    expect(slowly).toHaveLength(BURST);
    expect(new Set(slowly.map((a) => a.id))).toEqual(new Set(quickly.map((a) => a.id)));
    expect(new Set(slowly.map((a) => a.id)).size).toBe(BURST);
    expect(limited.requests).toHaveLength(BURST);

    // At most RATE in any second, measured where the merchant would: RATE + 1 arrivals in a row always
    // span a second or more. Exact, however loaded the machine: each arrival lies between its send's
    // admission and its answer, and the throttle admits a send only while fewer than RATE others are in
    // flight or were answered within the second before (on Redis's clock). So of RATE + 1 arrivals, the
    // send admitted last found one of the others answered a second before, and that one arrived earlier
    // still. No margin for delays: a stalled event loop (worker's, or this receiver's) only delays an
    // arrival within the span the throttle counts. One monotonic clock here for every arrival.
    for (let k = 0; k + RATE < slowly.length; k++) {
      expect(
        slowly[k + RATE].at - slowly[k].at,
        `arrivals ${k} to ${k + RATE}: ${RATE + 1} within a second`,
      ).toBeGreaterThanOrEqual(THROTTLE_WINDOW_MS);
    }

    // Isolation: the unlimited endpoint had every event while the limited one had had under half.
    const lastQuick = quickly[quickly.length - 1].at;
    expect(slowly.filter((a) => a.at <= lastQuick).length).toBeLessThan(BURST / 2);

    // A wait for a turn is no attempt: each delivery succeeded at its first and only attempt.
    await eventually('every delivery recorded', async () => {
      const deliveries = dataOf<Delivery[]>(
        await tenant.client.get(`/v1/event-endpoints/${slow.id}/deliveries?limit=100`),
      );
      expect(deliveries).toHaveLength(BURST);
      expect(deliveries.filter((d) => d.status !== 'SUCCEEDED' || d.attempts !== 1)).toEqual([]);
      return true;
    });
    const [last] = dataOf<Delivery[]>(
      await tenant.client.get(`/v1/event-endpoints/${slow.id}/deliveries?limit=1`),
    );
    const log = dataOf<unknown[]>(
      await tenant.client.get(`/v1/event-endpoints/${slow.id}/deliveries/${last.id}/attempts`),
    );
    expect(log).toHaveLength(1);
    await tenant.client.delete(`/v1/event-endpoints/${fast.id}`);
  }, 300_000);
});

/**
 * Without Redis a rate-limited endpoint gets nothing unchecked: the delivery fails as a job fails in any
 * Redis outage (BullMQ runs it again later), nothing is sent and no attempt is counted; with Redis back,
 * it is delivered.
 */
describe('events: a rate-limited delivery while Redis is unreachable', () => {
  let redis: PrivateRedis;
  let stack: Stack;
  let tenant: Tenant;
  let receiver: Receiver;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    stack = await startStack({
      ownDatabase: 'throttle_outage',
      overrides: { REDIS_URL: redis.url, QUEUE_PREFIX: uniqueQueuePrefix('throttle-outage') },
    });
    tenant = await onboard(stack);
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await stack?.close();
    await redis?.destroy();
  });

  it('sends nothing and counts no attempt, then delivers once Redis is back', async () => {
    const endpoint = dataOf<{ endpoint: Endpoint }>(
      await tenant.client.post('/v1/event-endpoints', { url: receiver.url, rateLimit: 1 }),
      201,
    ).endpoint;
    await recordBurst(stack, tenant, 1);
    await stack.api.app.get(OutboxRelayService).relayAll();
    const path = `/v1/event-endpoints/${endpoint.id}/deliveries`;
    const [delivery] = dataOf<Delivery[]>(await tenant.client.get(path));
    const deliveries = stack.api.app.get(EventDeliveryService);

    await redis.stop();
    const failed = await deliveries.attempt(delivery.id).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(dependencyFailureOf(failed)).toBe('redis');
    expect(receiver.requests).toEqual([]);

    await redis.start();
    await eventually('delivered with Redis back', async () => {
      expect(await deliveries.attempt(delivery.id)).toEqual({ outcome: 'delivered' });
      return true;
    });
    expect(receiver.requests).toHaveLength(1);
    // The failed try was no attempt: the one that delivered is the first.
    expect(dataOf<Delivery[]>(await tenant.client.get(path))[0]).toMatchObject({
      status: 'SUCCEEDED',
      attempts: 1,
    });
  });
});
