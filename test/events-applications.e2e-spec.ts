import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UpstreamWebhookRepository } from '#libs/domain/inbox';
import { UserRepository } from '#libs/domain/users';
import {
  createBankPaymentRow,
  createMerchant,
  createSandboxSubApplication,
  createUser,
  eventually,
  postUpstreamEvent,
  rootApplication,
  SandboxHttp,
  tuned,
  uniqueName,
  unsignedWebhookError,
  upstreamEvent,
  useStack,
} from './kit/index.js';

/**
 * Issue 24, defect 4: an upstream event is verified with the secret of the application it names, and
 * changes only consents and payments of that application. Three applications are registered with the
 * sandbox through the operator route (the root one and two sub-applications, each with its own secret),
 * and their merchants hold consents and payments under the same upstream ids, as the upstream's
 * applications may.
 */
describe('events in: each application’s events reach only that application’s consents and payments', () => {
  // The worker fans out every inbox event of its database: this file has one of its own.
  const stack = useStack({
    ownDatabase: 'events_apps',
    worker: true,
    overrides: { ...tuned({ eventsSweepEverySeconds: 1 }) },
  });
  let prisma: PrismaService;
  let sandbox: SandboxHttp;
  let root: string;
  /** A merchant per application: the root one (no sub-application), A and B. */
  const merchants: Record<'root' | 'a' | 'b', { merchantId: string; userId: string; applicationId: string }> =
    {} as never;
  /** Each application's signing secret, as the sandbox holds it and we stored it. */
  const secrets: Record<string, string> = {};

  beforeAll(async () => {
    prisma = stack.api.app.get(PrismaService);
    sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    root = rootApplication(stack);
    const users = stack.api.app.get(UserRepository);
    const registrations = stack.api.app.get(UpstreamWebhookRepository);
    const callbackUrl = `${stack.api.url}/v1/webhooks/upstream`;

    for (const key of ['root', 'a', 'b'] as const) {
      const subApplicationId =
        key === 'root' ? undefined : await createSandboxSubApplication(stack.sandbox.url, stack.api.config);
      const { merchant } = await createMerchant(stack.api, subApplicationId ? { subApplicationId } : {});
      const user = await createUser(users, merchant.id);
      const applicationId = subApplicationId ?? root;
      merchants[key] = { merchantId: merchant.id, userId: user.id, applicationId };
      const secretsOf = async () =>
        (await registrations.secretsByApplication(new Date(0))).get(applicationId) ?? [];
      const before = await secretsOf();
      const registered = await stack.operator.post('/admin/upstream/webhooks', {
        callbackUrl,
        ...(subApplicationId ? { merchantId: merchant.id } : {}),
      });
      expect([registered.status, registered.body.data.applicationId]).toEqual([201, applicationId]);
      const added = (await secretsOf()).filter((s) => !before.includes(s));
      expect(added).toHaveLength(1);
      secrets[applicationId] = added[0];
    }
  });

  /** An authorised consent of the application's merchant under `upstreamConsentId`: its id. */
  async function consentOf(key: 'root' | 'a' | 'b', upstreamConsentId: string): Promise<string> {
    const { merchantId, userId } = merchants[key];
    const consent = await prisma.consent.create({
      data: {
        merchantId,
        userId,
        kind: 'ACCOUNT',
        upstreamConsentId,
        institutionId: 'sandbox-redirect',
        status: 'AUTHORIZED',
      },
    });
    return consent.id;
  }

  /** A pending payment of the application's merchant under `upstreamPaymentId`: its id. */
  async function paymentOf(key: 'root' | 'a' | 'b', upstreamPaymentId: string): Promise<string> {
    const { merchantId, userId } = merchants[key];
    return (await createBankPaymentRow(prisma, { id: userId, merchantId }, upstreamPaymentId)).id;
  }

  const statusOf = async (consentId: string) =>
    (await prisma.consent.findUniqueOrThrow({ where: { id: consentId } })).status;
  const paymentStatusOf = async (paymentId: string) =>
    (await prisma.payment.findUniqueOrThrow({ where: { id: paymentId } })).status;

  /** The inbox row of an event, once the worker has fanned it out. */
  const fannedOut = (eventId: string) =>
    eventually(`event ${eventId} fanned out`, async () => {
      const row = await prisma.inboundEvent.findFirst({ where: { eventId } });
      return row?.status === 'PROCESSED' ? row : undefined;
    });

  /** Has the sandbox emit an event for an application, and waits until we have fanned it out. */
  async function emitted(applicationId: string, type: string, data: Record<string, unknown>) {
    const response = await sandbox.admin('POST', '/webhooks/emit', { applicationId, type, data });
    expect(response.status).toBe(202);
    const eventId = response.body.data.eventId as string;
    const delivery = await eventually('delivered by the sandbox', async () => {
      const { body } = await sandbox.admin('GET', `/webhooks/deliveries?eventId=${eventId}`);
      const [record] = body.data as { state: string; attempts: { statusCode?: number }[] }[];
      return record && record.state !== 'pending' ? record : undefined;
    });
    expect([delivery.state, delivery.attempts.at(-1)?.statusCode]).toEqual(['delivered', 200]);
    return fannedOut(eventId);
  }

  it('the sandbox revoking a consent of one application changes only that application’s consent', async () => {
    // Three applications' consents under one upstream id.
    const shared = uniqueName('consent');
    const consents = {
      root: await consentOf('root', shared),
      a: await consentOf('a', shared),
      b: await consentOf('b', shared),
    };

    const fromA = await emitted(merchants.a.applicationId, 'consent.state.revoked', { consentId: shared });
    expect(fromA).toMatchObject({
      applicationId: merchants.a.applicationId,
      outcome: 'applied',
      merchantId: merchants.a.merchantId,
    });
    expect([await statusOf(consents.root), await statusOf(consents.a), await statusOf(consents.b)]).toEqual([
      'AUTHORIZED',
      'REVOKED',
      'AUTHORIZED',
    ]);

    const fromRoot = await emitted(root, 'consent.state.expired', { consentId: shared });
    expect(fromRoot).toMatchObject({ outcome: 'applied', merchantId: merchants.root.merchantId });
    expect([await statusOf(consents.root), await statusOf(consents.a), await statusOf(consents.b)]).toEqual([
      'EXPIRED',
      'REVOKED',
      'AUTHORIZED',
    ]);
  });

  it('the sandbox completing a payment of one application completes only that application’s payment', async () => {
    const shared = uniqueName('payment');
    const payments = { root: await paymentOf('root', shared), b: await paymentOf('b', shared) };
    // The same upstream payment id under two applications: the event finishes the one of the application
    // that signed it, never the other's.
    const fromBOfShared = await emitted(merchants.b.applicationId, 'payment.state.success', {
      paymentId: shared,
      status: 'COMPLETED',
    });
    expect(fromBOfShared).toMatchObject({ outcome: 'applied', merchantId: merchants.b.merchantId });
    expect([await paymentStatusOf(payments.root), await paymentStatusOf(payments.b)]).toEqual([
      'PENDING',
      'COMPLETED',
    ]);

    const own = uniqueName('payment');
    const paymentOfB = await paymentOf('b', own);
    const fromA = await emitted(merchants.a.applicationId, 'payment.state.success', {
      paymentId: own,
      status: 'COMPLETED',
    });
    expect(fromA.outcome).toBe('unmatched');
    expect(await paymentStatusOf(paymentOfB)).toBe('PENDING');
    const fromB = await emitted(merchants.b.applicationId, 'payment.state.success', {
      paymentId: own,
      status: 'COMPLETED',
    });
    expect(fromB).toMatchObject({ outcome: 'applied', merchantId: merchants.b.merchantId });
    expect(await paymentStatusOf(paymentOfB)).toBe('COMPLETED');
  });

  it('refuses, 401, an event signed with one application’s secret that names another, storing and changing nothing', async () => {
    const consentOfB = await consentOf('b', uniqueName('consent'));
    const upstreamConsentId = (await prisma.consent.findUniqueOrThrow({ where: { id: consentOfB } }))
      .upstreamConsentId;
    const a = merchants.a.applicationId;
    const b = merchants.b.applicationId;
    const event = () => upstreamEvent('consent.state.revoked', { consentId: upstreamConsentId });

    const forged = [
      // A's secret, claiming B.
      await postUpstreamEvent(stack, event(), secrets[a], { applicationId: b }),
      // The root application's secret, claiming B.
      await postUpstreamEvent(stack, event(), secrets[root], { applicationId: b }),
      // A's secret, claiming an application with no registered secret.
      await postUpstreamEvent(stack, event(), secrets[a], { applicationId: uniqueName('app') }),
    ];
    for (const answer of forged) {
      expect({ status: answer.status, error: answer.body.error }).toEqual({
        status: 401,
        error: unsignedWebhookError(),
      });
    }

    // A's secret, claiming A, naming B's consent: stored (A signed it), but nothing of A's matches.
    const claimsA = event();
    const accepted = await postUpstreamEvent(stack, claimsA, secrets[a], { applicationId: a });
    expect(accepted.status).toBe(200);
    expect(await fannedOut(claimsA.id)).toMatchObject({
      applicationId: a,
      outcome: 'unmatched',
      merchantId: null,
    });
    expect(await statusOf(consentOfB)).toBe('AUTHORIZED');

    // The same event signed by B, for B, is B's to apply.
    const claimsB = event();
    expect((await postUpstreamEvent(stack, claimsB, secrets[b], { applicationId: b })).status).toBe(200);
    expect(await fannedOut(claimsB.id)).toMatchObject({
      outcome: 'applied',
      merchantId: merchants.b.merchantId,
    });
    expect(await statusOf(consentOfB)).toBe('REVOKED');
    expect(await prisma.inboundEvent.count({ where: { applicationId: { notIn: [root, a, b] } } })).toBe(0);
  });

  it('refuses, 400, a signed event that names no application; unsigned, 401', async () => {
    const event = upstreamEvent('consent.state.revoked', { consentId: uniqueName('consent') });
    const signed = await postUpstreamEvent(stack, event, secrets[root], { applicationId: null });
    expect([signed.status, signed.body.error.code, signed.body.error.details]).toEqual([
      400,
      'VALIDATION_FAILED',
      [{ field: 'applicationId', issue: 'is missing: the event must name its application' }],
    ]);
    const number = await postUpstreamEvent(stack, event, secrets[root], {
      signedBody: JSON.stringify({ ...event, applicationId: 42 }),
    });
    expect([number.status, number.body.error.details]).toEqual([
      400,
      [{ field: 'applicationId', issue: 'is missing: the event must name its application' }],
    ]);
    const unsigned = await postUpstreamEvent(stack, event, secrets[root], {
      applicationId: null,
      unsigned: true,
    });
    expect([unsigned.status, unsigned.body.error.code]).toEqual([401, 'UNAUTHENTICATED']);
    expect(await prisma.inboundEvent.count({ where: { eventId: event.id } })).toBe(0);
  });
});
