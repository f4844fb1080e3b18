import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { ConsentTokenVault } from '#libs/domain/consents';
import { PaymentStatusPoller } from '#libs/domain/payments';
import {
  type ApiClient,
  atBank,
  dataOf,
  eventually,
  onboard,
  payee,
  paymentBodies,
  paymentEvents,
  REDIRECT_URL,
  type Stack,
  startStack,
  tuned,
  uniqueName,
  useBankFaults,
  useStack,
  useTenant,
} from './kit/index.js';

/**
 * Single payments end to end against the sandbox: the hosted bank page, our callback making the payment
 * once, the status poll bringing it to its final status, and the one event it announces.
 */
describe('single payments', () => {
  const stack = useStack({ ownDatabase: 'payments', worker: true });
  const tenant = useTenant(stack);
  const other = useTenant(stack);
  let prisma: PrismaService;
  let poller: PaymentStatusPoller;
  const sandbox = useBankFaults(stack);

  // Two processes' worth of the poll: the worker's instance and the api's, on one database of their own.
  let pollers: PaymentStatusPoller[];

  beforeAll(() => {
    prisma = stack.api.app.get(PrismaService);
    pollers = [stack.worker!.app.get(PaymentStatusPoller), stack.api.app.get(PaymentStatusPoller)];
    poller = pollers[0];
  });

  const start = (
    body = paymentBodies.single(),
    key: string | null = uniqueName('pay'),
    client: ApiClient = tenant.client,
    userId = tenant.userId,
  ) => client.post(`/v1/users/${userId}/payments`, body, { headers: key ? { 'idempotency-key': key } : {} });

  /** Runs status-poll rounds until the payment is final (the poll is due at once under the test config). */
  const settled = (paymentId: string) =>
    eventually(`payment ${paymentId} final`, async () => {
      await poller.pollDue();
      const payment = dataOf(await tenant.client.get(`/v1/payments/${paymentId}`));
      return ['PENDING', 'SUBMITTING', 'AWAITING_AUTHORIZATION'].includes(payment.status)
        ? undefined
        : payment;
    });

  it('goes from the request through the bank to COMPLETED once, with one payment.completed; a replay is the same payment', async () => {
    const key = uniqueName('pay');
    const created = dataOf(await start(paymentBodies.single(), key), 201);
    expect(created).toMatchObject({
      kind: 'SINGLE',
      status: 'AWAITING_AUTHORIZATION',
      amount: { amount: '12.34', currency: 'GBP' },
      reference: 'Order 1234',
      payee: payee(),
      upstreamPaymentId: null,
    });
    expect(created.authorisationUrl).toMatch(/^http/);
    const replay = dataOf(await start(paymentBodies.single(), key), 201);
    expect(replay.id).toBe(created.id);

    const back = await atBank(stack, created.authorisationUrl);
    expect(back.status).toBe(302);
    expect(`${back.location.origin}${back.location.pathname}`).toBe(REDIRECT_URL);
    expect(back.query).toMatchObject({
      paymentId: created.id,
      consentId: created.consentId,
      status: 'PENDING',
    });

    const pending = dataOf(await tenant.client.get(`/v1/payments/${created.id}`));
    expect(pending.status).toBe('PENDING');
    expect(pending.upstreamPaymentId).toBeTruthy();
    expect(pending.authorisationUrl).toBeNull();

    const done = await settled(created.id);
    expect(done.status).toBe('COMPLETED');
    await poller.pollDue();
    expect(await paymentEvents(stack, created.id)).toEqual([
      { type: 'payment.completed', status: 'COMPLETED' },
    ]);
    expect(await prisma.payment.count({ where: { consentId: created.consentId } })).toBe(1);
  });

  it('is the same payment for the same Idempotency-Key even when our record of the request is gone', async () => {
    const key = uniqueName('pay');
    const first = dataOf(await start(paymentBodies.single(), key), 201);
    // The idempotency record may be released (a 500 after the bank took the payment) or expire.
    await prisma.$executeRaw`DELETE FROM idempotency_keys WHERE key = ${key}`;
    const again = dataOf(await start(paymentBodies.single(), key), 201);
    expect(again.id).toBe(first.id);
    expect(
      await prisma.payment.count({
        where: {
          paymentIdempotencyId: (await prisma.payment.findUniqueOrThrow({ where: { id: first.id } }))
            .paymentIdempotencyId,
        },
      }),
    ).toBe(1);
  });

  it('parks, for a person, a payment whose repeated send the bank refuses: the first send may have been made', async () => {
    const created = dataOf(await start(), 201);
    await sandbox.admin('POST', '/faults', { method: 'POST', path: '/payments', status: 503, count: 4 });
    expect((await atBank(stack, created.authorisationUrl)).query.status).toBe('SUBMITTING');
    // The bank refuses the repeat (say, the consent is used up by the first send, whose answer was lost).
    await sandbox.admin('POST', '/faults', { method: 'POST', path: '/payments', status: 409, count: 1 });
    await eventually('parked', async () => {
      await poller.pollDue();
      const row = await prisma.payment.findUniqueOrThrow({ where: { id: created.id } });
      return row.nextStatusCheckAt === null ? row : undefined;
    });
    await sandbox.admin('DELETE', '/faults');
    const payment = dataOf(await tenant.client.get(`/v1/payments/${created.id}`));
    expect(payment.status).toBe('SUBMITTING');
    expect(payment.heldForReview?.reason).toMatch(/^A repeated send was refused/);
    // Not failed: the merchant is told a person is checking, once.
    expect(await paymentEvents(stack, created.id)).toEqual([
      { type: 'payment.held_for_review', status: 'SUBMITTING' },
    ]);
  });

  it('parks, never fails, a payment whose first send lost its answer inside one submission and whose resend the bank refuses', async () => {
    for (const status of [400, 409]) {
      const created = dataOf(await start(), 201);
      // The client's own retry resends it: the dropped first send may have been made.
      await sandbox.admin('POST', '/faults', { method: 'POST', path: '/payments', drop: true, count: 1 });
      await sandbox.admin('POST', '/faults', { method: 'POST', path: '/payments', status, count: 20 });
      expect((await atBank(stack, created.authorisationUrl)).query.status).toBe('SUBMITTING');
      await sandbox.admin('DELETE', '/faults');
      const row = await prisma.payment.findUniqueOrThrow({ where: { id: created.id } });
      expect(row).toMatchObject({ status: 'SUBMITTING', nextStatusCheckAt: null });
      expect((row.statusDetails as { pollStopped?: string }).pollStopped).toMatch(
        /^A repeated send was refused/,
      );
      expect(dataOf(await tenant.client.get(`/v1/payments/${created.id}`)).status).toBe('SUBMITTING');
      expect(await paymentEvents(stack, created.id)).toEqual([
        { type: 'payment.held_for_review', status: 'SUBMITTING' },
      ]);
      const parked = dataOf<{ id: string }[]>(await stack.operator.get('/admin/payments/parked?limit=100'));
      expect(parked.map((p) => p.id)).toContain(created.id);
    }
  });

  it('never uses the consent twice: a repeated callback pays nothing again, the consent CONSUMED here and upstream', async () => {
    const created = dataOf(await start(), 201);
    const back = await atBank(stack, created.authorisationUrl);
    expect(back.query.status).toBe('PENDING');
    // The browser's back button, or a reload after a lost answer: back to the merchant with the payment
    // as it is now, and nothing is paid again.
    const again = await fetch(back.callback, { redirect: 'manual' });
    expect(again.status).toBe(302);
    const replayed = new URL(again.headers.get('location')!);
    expect(replayed.searchParams.get('paymentId')).toBe(created.id);
    expect(replayed.searchParams.get('status')).toMatch(/^(PENDING|COMPLETED)$/);
    const consent = dataOf(await tenant.client.get(`/v1/consents/${created.consentId}`));
    expect(consent).toMatchObject({ kind: 'PAYMENT', status: 'CONSUMED' });
    // The token itself, sent upstream for a second payment: the bank refuses it too.
    const row = await prisma.consent.findUniqueOrThrow({ where: { id: created.consentId } });
    const token = stack.api.app.get(ConsentTokenVault).open(row, row.id)!;
    const second = await sandbox.call('POST', '/payments', {
      headers: { consent: token },
      body: {
        paymentIdempotencyId: uniqueName('second')
          .replace(/[^a-z0-9]/gi, '')
          .slice(0, 35),
        type: 'DOMESTIC_PAYMENT',
        amount: { amount: 12.34, currency: 'GBP' },
        payee: payee(),
        reference: 'Order 1234',
      },
    });
    expect(second.status).toBe(403);
    expect(await prisma.payment.count({ where: { consentId: created.consentId } })).toBe(1);
  });

  it('ends REJECTED with one payment.failed when the user says no at the bank', async () => {
    const created = dataOf(await start(), 201);
    const back = await atBank(stack, created.authorisationUrl, 'deny');
    expect(back.query).toMatchObject({ paymentId: created.id, status: 'REJECTED' });
    const payment = dataOf(await tenant.client.get(`/v1/payments/${created.id}`));
    expect(payment).toMatchObject({ status: 'REJECTED', upstreamPaymentId: null });
    expect(await paymentEvents(stack, created.id)).toEqual([{ type: 'payment.failed', status: 'REJECTED' }]);
  });

  it('ends EXPIRED, announced once, when the user never comes back from the bank in time', async () => {
    const created = dataOf(await start(), 201);
    const row = await prisma.payment.findUniqueOrThrow({ where: { id: created.id } });
    // Due when our signed state has died (an hour), and not before.
    expect(row.nextStatusCheckAt!.getTime() - Date.now()).toBeGreaterThan(3600_000);
    await poller.pollDue();
    expect(dataOf(await tenant.client.get(`/v1/payments/${created.id}`)).status).toBe(
      'AWAITING_AUTHORIZATION',
    );
    await prisma.payment.update({
      where: { id: created.id },
      data: { nextStatusCheckAt: new Date(Date.now() - 1000) },
    });
    const expired = await settled(created.id);
    expect(expired).toMatchObject({
      status: 'EXPIRED',
      statusReason: 'The user did not authorise the payment in time',
    });
    expect(await paymentEvents(stack, created.id)).toEqual([{ type: 'payment.failed', status: 'EXPIRED' }]);
  });

  it('reaches FAILED by polling when no webhook comes (the sandbox fails amounts ending .99)', async () => {
    const created = dataOf(
      await start(paymentBodies.single({ amount: { amount: '20.99', currency: 'GBP' } })),
      201,
    );
    await atBank(stack, created.authorisationUrl);
    const failed = await settled(created.id);
    expect(failed).toMatchObject({ status: 'FAILED', statusReason: 'INSUFFICIENT_FUNDS' });
    expect(await paymentEvents(stack, created.id)).toEqual([{ type: 'payment.failed', status: 'FAILED' }]);
  });

  it('asks again on the usual schedule after a status read fails, not once the round’s claim has lapsed', async () => {
    const created = dataOf(await start(), 201);
    await atBank(stack, created.authorisationUrl);
    // Every status read fails while the fault stands; a round that met it must not hold the payment.
    const fault = await sandbox.admin('POST', '/faults', {
      method: 'GET',
      path: '/payments/**',
      status: 503,
    });
    expect(fault.status).toBe(201);
    const round = await eventually('a round that met the fault', async () => {
      const result = await poller.pollDue();
      return result.failed > 0 ? result : undefined;
    });
    expect(round.finalised).toBe(0);
    await sandbox.admin('DELETE', '/faults');
    expect((await settled(created.id)).status).toBe('COMPLETED');
  });

  it('makes a payment whose submission failed on the callback later, under the same idempotency id, once', async () => {
    const created = dataOf(await start(), 201);
    // The bank is down just when the callback submits: a 503 for each of the client's four attempts.
    const fault = await sandbox.admin('POST', '/faults', {
      method: 'POST',
      path: '/payments',
      status: 503,
      count: 4,
    });
    expect(fault.status).toBe(201);
    const back = await atBank(stack, created.authorisationUrl);
    expect(back.query).toMatchObject({ paymentId: created.id, status: 'SUBMITTING' });
    expect((await tenant.client.get(`/v1/payments/${created.id}`)).body.data.status).toBe('SUBMITTING');
    await sandbox.admin('DELETE', '/faults');

    const done = await settled(created.id);
    expect(done.status).toBe('COMPLETED');
    expect(await paymentEvents(stack, created.id)).toEqual([
      { type: 'payment.completed', status: 'COMPLETED' },
    ]);
    const consent = dataOf(await tenant.client.get(`/v1/consents/${created.consentId}`));
    expect(consent.status).toBe('CONSUMED');
    // The bank made it under the idempotency id we chose when the payment was asked for.
    const row = await prisma.payment.findUniqueOrThrow({ where: { id: created.id } });
    const atSandbox = await sandbox.admin('GET', `/payments/${row.upstreamPaymentId}`);
    expect(atSandbox.body.data.paymentIdempotencyId).toBe(row.paymentIdempotencyId);
  });

  it('two workers polling at once finalise each payment once', async () => {
    const payments: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = dataOf(await start(), 201);
      await atBank(stack, created.authorisationUrl);
      payments.push(created.id);
    }
    await eventually('all final', async () => {
      await Promise.all(pollers.map((p) => p.pollDue()));
      const rows = await prisma.payment.findMany({ where: { id: { in: payments } } });
      return rows.every((r) => r.status === 'COMPLETED') ? true : undefined;
    });
    for (const id of payments) {
      expect(await paymentEvents(stack, id)).toEqual([{ type: 'payment.completed', status: 'COMPLETED' }]);
    }
  });

  it('lists a user’s payments newest first, keyset-paged', async () => {
    const fresh = dataOf(await tenant.client.post('/v1/users', { reference: uniqueName('payer') }), 201);
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push(dataOf(await start(undefined, undefined, undefined, fresh.id), 201).id);
    const first = await tenant.client.get(`/v1/users/${fresh.id}/payments?limit=2`);
    expect(dataOf(first).map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
    const next = await tenant.client.get(first.body.links.next);
    expect(dataOf(next).map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    expect(next.body.meta.nextCursor).toBeNull();
  });

  it('refuses bad input with a clear 400 and keeps nothing', async () => {
    const before = await prisma.payment.count();
    const cases: [object, string][] = [
      [paymentBodies.single({ amount: { amount: '12.345', currency: 'GBP' } }), 'amount.amount'],
      [paymentBodies.single({ amount: { amount: '0', currency: 'GBP' } }), 'amount.amount'],
      [{ ...paymentBodies.single(), amount: { amount: 12.34, currency: 'GBP' } }, 'amount.amount'],
      [paymentBodies.single({ amount: { amount: '1.00', currency: 'gbp' } }), 'amount.currency'],
      [
        paymentBodies.single({ payee: { name: 'X', accountIdentifications: [] } }),
        'payee.accountIdentifications',
      ],
      [{ ...paymentBodies.single(), payee: undefined }, 'payee'],
      [paymentBodies.single({ reference: 'r'.repeat(19) }), 'reference'],
      [paymentBodies.single({ redirectUrl: 'javascript:alert(1)' }), 'redirectUrl'],
      [{ ...paymentBodies.single(), surprise: true }, 'surprise'],
      [paymentBodies.single({ reference: 'Café 1234' }), 'reference'],
      [
        paymentBodies.single({
          payee: {
            name: 'Two sort codes',
            accountIdentifications: [
              { type: 'SORT_CODE', identification: '123456' },
              { type: 'SORT_CODE', identification: '654321' },
              { type: 'ACCOUNT_NUMBER', identification: '12345678' },
            ],
          },
        }),
        'payee.accountIdentifications',
      ],
    ];
    for (const [body, field] of cases) {
      const response = await start(body as never);
      expect([response.status, response.body.error.code], JSON.stringify(body)).toEqual([
        400,
        'VALIDATION_FAILED',
      ]);
      expect(
        response.body.error.details
          .map((d: { field: string }) => d.field)
          .some((f: string) => f.startsWith(field)),
        `${field}: ${JSON.stringify(response.body.error.details)}`,
      ).toBe(true);
    }
    const keyless = await start(paymentBodies.single(), null);
    expect([keyless.status, keyless.body.error.details[0].field]).toEqual([400, 'Idempotency-Key']);
    const badInstitution = await start(paymentBodies.single({ institutionId: 'no-such-bank' }));
    expect(badInstitution.status).toBe(400);
    expect(await prisma.payment.count()).toBe(before);
  });

  it('keeps tenants and users apart on every payment route', async () => {
    const created = dataOf(await start(), 201);
    const stranger = other.client;
    expect((await stranger.get(`/v1/payments/${created.id}`)).status).toBe(404);
    expect((await stranger.get(`/v1/users/${tenant.userId}/payments`)).status).toBe(404);
    expect((await start(paymentBodies.single(), uniqueName('x'), stranger)).status).toBe(404);
    expect(
      (await stranger.post(`/v1/users/${tenant.userId}/vrp/consents`, paymentBodies.vrpConsent())).status,
    ).toBe(404);
    // A user's session sees its own payments only.
    const session = dataOf(await tenant.client.post(`/v1/users/${tenant.userId}/sessions`), 201).token;
    const neighbour = dataOf(
      await tenant.client.post('/v1/users', { reference: uniqueName('neighbour') }),
      201,
    );
    const theirs = dataOf(await start(undefined, undefined, undefined, neighbour.id), 201);
    const asUser = tenant.client.as(session);
    expect((await asUser.get(`/v1/payments/${created.id}`)).status).toBe(200);
    expect((await asUser.get(`/v1/payments/${theirs.id}`)).status).toBe(404);
    expect((await asUser.get(`/v1/users/${neighbour.id}/payments`)).status).toBe(404);
    expect((await start(paymentBodies.single(), uniqueName('x'), asUser, neighbour.id)).status).toBe(404);
    expect((await stack.anonymous.get(`/v1/payments/${created.id}`)).status).toBe(401);
    expect((await tenant.client.get('/v1/payments/not-a-uuid')).status).toBe(404);
  });
});

describe('the scheduled status poll', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      ownDatabase: 'payment_poll',
      worker: true,
      overrides: { ...tuned({ paymentStatusPollSeconds: 1 }) },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('brings a payment to its final status with no webhook and no help', async () => {
    const tenant = await onboard(stack);
    const created = dataOf(
      await tenant.client.post(`/v1/users/${tenant.userId}/payments`, paymentBodies.single(), {
        headers: { 'idempotency-key': uniqueName('pay') },
      }),
      201,
    );
    expect((await atBank(stack, created.authorisationUrl)).query.status).toBe('PENDING');
    const done = await eventually('completed by the worker', async () => {
      const payment = dataOf(await tenant.client.get(`/v1/payments/${created.id}`));
      return payment.status === 'COMPLETED' ? payment : undefined;
    });
    expect(done.status).toBe('COMPLETED');
    expect(await paymentEvents(stack, created.id)).toEqual([
      { type: 'payment.completed', status: 'COMPLETED' },
    ]);
  });
});
