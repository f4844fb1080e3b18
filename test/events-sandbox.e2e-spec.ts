import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import {
  connect,
  createBankPaymentRow,
  eventually,
  sandboxOf,
  sessionToken,
  tuned,
  uniqueName,
  upstreamConsentId,
  useReceiver,
  useStack,
  useTenant,
} from './kit/index.js';
import { SseClient } from './kit/sse-client.js';

/**
 * The sandbox's own signed webhooks, registered through the operator route, end to end: sandbox →
 * receiver → inbox → fan-out → the merchant's endpoint and the user's live stream.
 */
describe('events from the sandbox, end to end', () => {
  const stack = useStack({
    ownDatabase: 'events_sandbox',
    worker: true,
    overrides: {
      ...tuned({ eventsSweepEverySeconds: 1, sseHeartbeatSeconds: 1 }),
    },
  });
  const tenant = useTenant(stack);
  const sandbox = sandboxOf(stack);
  const receiver = useReceiver();
  let endpointSecret: string;
  let prisma: PrismaService;

  beforeAll(async () => {
    prisma = stack.api.app.get(PrismaService);
    const created = await tenant.client.post('/v1/event-endpoints', {
      url: receiver.url,
      types: ['consent.revoked', 'payment.completed'],
    });
    expect(created.status).toBe(201);
    endpointSecret = created.body.data.secret;
    const registered = await stack.operator.post('/admin/upstream/webhooks', {
      callbackUrl: `${stack.api.url}/v1/webhooks/upstream`,
    });
    expect(registered.status).toBe(201);
  });

  it('a consent revoked at the bank reaches the merchant endpoint and the user’s stream', async () => {
    const consentId = await connect(stack, tenant);
    const token = sessionToken(stack.api.config, {
      merchantId: tenant.merchant.merchant.id,
      userId: tenant.userId,
    });
    const stream = await SseClient.open(`${stack.api.url}/v1/users/${tenant.userId}/events`, token);
    try {
      const revoked = await sandbox.admin(
        'POST',
        `/consents/${await upstreamConsentId(stack, consentId)}/revoke`,
      );
      expect(revoked.status).toBeLessThan(300);

      const [delivered] = await eventually('the revocation delivered', () =>
        receiver.accepted().length > 0 ? receiver.accepted() : undefined,
      );
      const event = new Webhook(endpointSecret).verify(
        delivered.body,
        delivered.headers as Record<string, string>,
      ) as { type: string; data: Record<string, unknown> };
      expect(event).toMatchObject({ type: 'consent.revoked', data: { consentId, status: 'REVOKED' } });

      const messages = await eventually('the revocation streamed', () => {
        const found = stream.messages.filter((m) => m.event === 'consent.revoked');
        return found.length > 0 ? found : undefined;
      });
      expect(JSON.parse(messages[0].data)).toMatchObject({ id: delivered.id, data: { consentId } });

      const consent = await tenant.client.get(`/v1/consents/${consentId}`);
      expect(consent.body.data.status).toBe('REVOKED');
      // The webhook, or the first sync meeting the revoked token, got there first; either way, once.
      const inbox = await prisma.inboundEvent.findMany({ where: { type: 'consent.state.revoked' } });
      expect(inbox).toHaveLength(1);
      expect(inbox[0].status).toBe('PROCESSED');
      expect(['applied', 'unchanged']).toContain(inbox[0].outcome);
      const announced = await prisma.merchantEvent.findMany({ where: { type: 'CONSENT_REVOKED' } });
      expect(announced.filter((e) => (e.data as { consentId: string }).consentId === consentId)).toHaveLength(
        1,
      );
    } finally {
      stream.close();
    }
  });

  it('a payment event the sandbox sends twice completes our payment once', async () => {
    const upstreamPaymentId = uniqueName('payment');
    const payment = await createBankPaymentRow(
      prisma,
      { id: tenant.userId, merchantId: tenant.merchant.merchant.id },
      upstreamPaymentId,
    );
    const emitted = await sandbox.admin('POST', '/webhooks/emit', {
      applicationId: stack.api.config.upstream.applicationId,
      type: 'payment.state.success',
      data: { paymentId: upstreamPaymentId, status: 'COMPLETED' },
      duplicate: true,
    });
    expect(emitted.status).toBeLessThan(300);

    const completed = await eventually('the payment completion delivered', () => {
      const found = receiver.accepted().filter((r) => r.type === 'payment.completed');
      return found.length > 0 ? found : undefined;
    });
    expect(JSON.parse(completed[0].body)).toMatchObject({
      data: { paymentId: payment.id, status: 'COMPLETED', amount: { amount: '12.34', currency: 'GBP' } },
    });
    expect((await prisma.payment.findUniqueOrThrow({ where: { id: payment.id } })).status).toBe('COMPLETED');
    // Sent twice under one id: stored once, announced once.
    expect(await prisma.inboundEvent.count({ where: { type: 'payment.state.success' } })).toBe(1);
    expect(await prisma.merchantEvent.count({ where: { type: 'PAYMENT_COMPLETED' } })).toBe(1);
  });
});
