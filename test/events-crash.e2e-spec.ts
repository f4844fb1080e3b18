import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import {
  eventually,
  onboard,
  postUpstreamEvent,
  registeredSecret,
  spawnWorker,
  stackProcessEnv,
  type Tenant,
  tuned,
  uniqueName,
  uniqueQueuePrefix,
  upstreamEvent,
  useReceiver,
  useStack,
  WAIT,
  type WorkerProcess,
} from './kit/index.js';

const BURST = 500;

describe('R3: a worker killed in the middle of a burst of 500 webhooks (a second worker running)', () => {
  const stack = useStack({
    ownDatabase: 'events_crash',
    overrides: { QUEUE_PREFIX: uniqueQueuePrefix('events-crash') },
  });
  let tenant: Tenant;
  const receiver = useReceiver();
  const workers: WorkerProcess[] = [];
  const workerEnv = () =>
    stackProcessEnv(stack, tuned({ eventsSweepEverySeconds: 1, eventDeliveryBackoffSeconds: 1 }));

  beforeAll(async () => {
    tenant = await onboard(stack);
    workers.push(spawnWorker(workerEnv()), spawnWorker(workerEnv()));
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it('loses no event and fans none out twice; every merchant event reaches the endpoint', async () => {
    const prisma = stack.api.app.get(PrismaService);
    const secret = await registeredSecret(stack);
    const created = await tenant.client.post('/v1/event-endpoints', {
      url: receiver.url,
      types: ['consent.expired'],
    });
    expect(created.status).toBe(201);
    const upstreamIds = Array.from({ length: BURST }, () => uniqueName('consent'));
    await prisma.consent.createMany({
      data: upstreamIds.map((upstreamConsentId) => ({
        merchantId: tenant.merchant.merchant.id,
        userId: tenant.userId,
        kind: 'ACCOUNT' as const,
        upstreamConsentId,
        institutionId: 'sandbox-redirect',
        status: 'AUTHORIZED',
      })),
    });
    const events = upstreamIds.map((consentId) => upstreamEvent('consent.state.expired', { consentId }));

    let sent = 0;
    const killAt = BURST / 3;
    for (let i = 0; i < events.length; i += 25) {
      const answers = await Promise.all(
        events.slice(i, i + 25).map((e) => postUpstreamEvent(stack, e, secret)),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      sent += answers.length;
      if (sent >= killAt && workers.length === 2) {
        // Mid-burst: one worker dies with jobs in hand; a new one starts a moment later.
        await workers[0].kill();
        workers.push(spawnWorker(workerEnv()));
      }
    }

    const ids = events.map((e) => e.id);
    await eventually(
      'every webhook fanned out',
      async () =>
        (await prisma.inboundEvent.count({ where: { eventId: { in: ids }, status: 'PROCESSED' } })) === BURST
          ? true
          : undefined,
      WAIT.recovery,
    );
    const expired = await prisma.merchantEvent.findMany({
      where: { merchantId: tenant.merchant.merchant.id, type: 'CONSENT_EXPIRED' },
    });
    expect(expired).toHaveLength(BURST);
    expect(new Set(expired.map((e) => (e.data as { consentId: string }).consentId)).size).toBe(BURST);
    expect(
      await prisma.consent.count({ where: { upstreamConsentId: { in: upstreamIds }, status: 'EXPIRED' } }),
    ).toBe(BURST);

    // Deliveries are at least once: every event arrives, under its own stable id.
    await eventually(
      'every event delivered',
      () => (new Set(receiver.accepted().map((r) => r.id)).size === BURST ? true : undefined),
      WAIT.recovery,
    );
    expect(new Set(receiver.accepted().map((r) => r.id))).toEqual(new Set(expired.map((e) => e.id)));
    // The endpoint's receipt comes before the worker records it (a killed worker's receipts are sent
    // again and recorded by the other): every delivery ends SUCCEEDED, shortly after.
    await eventually(
      'every delivery recorded',
      async () =>
        (await prisma.eventDelivery.count({ where: { status: 'SUCCEEDED' } })) === BURST ? true : undefined,
      WAIT.recovery,
    );
  }, 300_000);
});
