import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryPolicy, nominalRetryDelayMs, retryDelayMs } from '#libs/domain/events';
import {
  assertProperty,
  atBank,
  dataOf,
  eventually,
  onboard,
  type Tenant,
  tuned,
  useReceiver,
  useStack,
} from './kit/index.js';

type Policy = DeliveryPolicy;

interface Delivery {
  status: string;
  attempts: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}

/**
 * GET /v1/event-delivery-policy is the schedule the worker applies: served from the settings and constants
 * the delivery code uses (here tuned away from the defaults, so a hard-coded answer would show), each
 * served offset the delivery code's own delay, and a real delivery retried within it.
 */
describe('api: the event delivery policy is the worker’s', () => {
  // Its own database and queues: a worker of another file, with other tuning, must not make the attempt
  // whose retry is measured here.
  const stack = useStack({
    ownDatabase: 'delivery_policy',
    worker: true,
    overrides: {
      EVENT_DELIVERY_RETRY_HOURS: '2',
      EVENT_RETENTION_DAYS: '9',
      ...tuned({
        eventDeliveryBackoffSeconds: 7,
        eventDeliveryTimeoutMs: 4_000,
        eventEndpointDisableAfterHours: 50,
      }),
    },
  });
  let tenant: Tenant;
  let policy: Policy;
  const receiver = useReceiver();

  beforeAll(async () => {
    tenant = await onboard(stack);
    policy = dataOf<Policy>(await tenant.client.get('/v1/event-delivery-policy'));
    receiver.otherwise = 500;
  });

  it('serves the configuration the delivery code reads', () => {
    expect(policy).toMatchObject({
      attemptTimeoutMs: 4_000,
      backoffBaseSeconds: 7,
      backoffCapSeconds: 3_600,
      retryWindowHours: 2,
      disableAfterHours: 50,
      retentionDays: 9,
    });
    const offsets = policy.nominalAttemptOffsetsSeconds;
    expect(offsets[0]).toBe(0);
    // The last attempt is within the window, and the one after it would not be: the worker gives up.
    const windowMs = policy.retryWindowHours * 3_600_000;
    const last = offsets[offsets.length - 1] * 1000;
    expect(last).toBeLessThanOrEqual(windowMs);
    expect(last + nominalRetryDelayMs(offsets.length, policy.backoffBaseSeconds)).toBeGreaterThan(windowMs);
  });

  it('serves, as the nth offset’s step, the delay the delivery code waits after n failures', async () => {
    const offsets = policy.nominalAttemptOffsetsSeconds;
    await assertProperty(
      fc.property(
        fc.integer({ min: 1, max: offsets.length - 1 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (failures, random) => {
          const served = (offsets[failures] - offsets[failures - 1]) * 1000;
          // Without jitter (its factor's middle), exactly the served step.
          expect(retryDelayMs(failures, policy.backoffBaseSeconds, () => 0.5)).toBe(served);
          // With any jitter, within the served ratio of it.
          const jittered = retryDelayMs(failures, policy.backoffBaseSeconds, () => random);
          expect(jittered).toBeGreaterThanOrEqual(Math.floor(served * (1 - policy.jitterRatio)));
          expect(jittered).toBeLessThanOrEqual(Math.ceil(served * (1 + policy.jitterRatio)));
        },
      ),
      200,
    );
  });

  it('retries a real delivery that failed after the first served step, within the jitter', async () => {
    const endpoint = dataOf<{ endpoint: { id: string } }>(
      await tenant.client.post('/v1/event-endpoints', { url: receiver.url, types: ['consent.failed'] }),
      201,
    ).endpoint;
    const created = await tenant.client.post(`/v1/users/${tenant.userId}/consents`, {
      institutionId: 'sandbox-redirect',
      redirectUrl: 'https://app.merchant.example/banks/done',
    });
    await atBank(stack, dataOf(created, 201).authorisationUrl, 'deny');
    const delivery = await eventually('the first attempt failed', async () => {
      const [first] = dataOf<Delivery[]>(
        await tenant.client.get(`/v1/event-endpoints/${endpoint.id}/deliveries`),
      );
      return first?.attempts === 1 ? first : undefined;
    });
    expect(delivery.status).toBe('PENDING');
    const waited = Date.parse(delivery.nextAttemptAt!) - Date.parse(delivery.lastAttemptAt!);
    const step = policy.nominalAttemptOffsetsSeconds[1] * 1000;
    expect(waited).toBeGreaterThanOrEqual(step * (1 - policy.jitterRatio) - 1);
    expect(waited).toBeLessThanOrEqual(step * (1 + policy.jitterRatio) + 1);
  });
});
