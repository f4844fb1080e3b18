import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { PaymentStatusPoller } from '#libs/domain/payments';
import {
  atBank,
  dataOf,
  eventually,
  paymentBodies,
  uniqueName,
  useBankFaults,
  useStack,
  useTenant,
} from './kit/index.js';

interface PaymentAnswer {
  id: string;
  status: string;
  statusReason: string | null;
  heldForReview: { since: string; reason: string } | null;
}

/**
 * A payment parked for a person (a repeated send refused: the first may have been paid) must not look
 * like one in flight: the merchant's answer and an event say a person is checking with the bank, since
 * when, and the final event carries what the person found.
 */
describe('payments: held for a person to check with the bank', () => {
  // The status poll acts on every payment of its database: this file has its own.
  const stack = useStack({ ownDatabase: 'held' });
  let prisma: PrismaService;
  const tenant = useTenant(stack);
  const sandbox = useBankFaults(stack);

  beforeAll(() => {
    prisma = stack.api.app.get(PrismaService);
  });

  const eventsOf = async (paymentId: string) =>
    (
      await prisma.merchantEvent.findMany({
        where: { merchantId: tenant.merchant.merchant.id, data: { path: ['paymentId'], equals: paymentId } },
        orderBy: { createdAt: 'asc' },
      })
    ).map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));

  it('says so on the payment and in payment.held_for_review, and the settlement’s note in the final event', async () => {
    // The first send is lost (it may have been paid), the next refused: parked, not failed.
    await sandbox.admin('POST', '/faults', { method: 'POST', path: '/payments', drop: true, count: 1 });
    await sandbox.admin('POST', '/faults', { method: 'POST', path: '/payments', status: 409, count: 1 });
    const created = dataOf<PaymentAnswer & { authorisationUrl: string }>(
      await tenant.client.post(`/v1/users/${tenant.userId}/payments`, paymentBodies.single(), {
        headers: { 'idempotency-key': uniqueName('held') },
      }),
      201,
    );
    await atBank(stack, created.authorisationUrl);
    const poller = stack.api.app.get(PaymentStatusPoller);
    const held = await eventually(`payment ${created.id} held`, async () => {
      await poller.pollDue();
      const now = dataOf<PaymentAnswer>(await tenant.client.get(`/v1/payments/${created.id}`));
      return now.heldForReview ? now : undefined;
    });
    expect(held.status).toBe('SUBMITTING');
    expect(held.heldForReview!.reason).toMatch(/^A repeated send was refused/);
    expect(Date.parse(held.heldForReview!.since)).not.toBeNaN();
    expect(held.statusReason).toMatch(/a person is checking with the bank/i);

    const heldEvents = await eventsOf(created.id);
    expect(heldEvents.map((e) => e.type)).toEqual(['PAYMENT_HELD_FOR_REVIEW']);
    expect(heldEvents[0].data).toMatchObject({
      paymentId: created.id,
      status: 'SUBMITTING',
      heldSince: held.heldForReview!.since,
      reason: held.heldForReview!.reason,
    });

    const note = 'Bank ref 77: the first send was paid';
    const settled = await stack.operator.post(`/admin/payments/${created.id}/settle`, {
      status: 'COMPLETED',
      note,
    });
    expect(settled.status).toBe(200);
    const final = dataOf<PaymentAnswer>(await tenant.client.get(`/v1/payments/${created.id}`));
    expect(final).toMatchObject({ status: 'COMPLETED', statusReason: note, heldForReview: null });
    const events = await eventsOf(created.id);
    expect(events.map((e) => e.type)).toEqual(['PAYMENT_HELD_FOR_REVIEW', 'PAYMENT_COMPLETED']);
    expect(events[1].data).toMatchObject({ status: 'COMPLETED', statusReason: note });
  });
});
