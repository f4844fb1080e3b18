import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { ConsentExpiryScanService } from '#libs/domain/consents';
import { PARKED_PAYMENT_SQL, PAYMENT_STATS_SQL } from '#libs/domain/payments';
import {
  type ApiClient,
  assertProperty,
  createConsentRow,
  createPaymentRow,
  createVrpConsentRow,
  dataOf,
  onboard,
  type Tenant,
  useStack,
} from './kit/index.js';

type Kind = 'parked' | 'due' | 'final';

/**
 * Payments no check will move any more wait for a person: the operator lists them and settles each once,
 * with the merchant's event. VRP consents nobody authorised end by themselves, like single payments do.
 */
describe('operator: payments parked for a person, and abandoned VRP consents', () => {
  // The expiry scan acts on every consent of its database: this file has its own.
  const stack = useStack({ ownDatabase: 'parked' });
  let prisma: PrismaService;
  let tenant: Tenant;

  beforeAll(async () => {
    prisma = stack.api.app.get(PrismaService);
    tenant = await onboard(stack);
  });

  const consentRow = () =>
    createConsentRow(prisma, { id: tenant.userId, merchantId: tenant.merchant.merchant.id });
  const payment = async (kind: Kind) => {
    const consent = await consentRow();
    if (kind === 'parked') {
      return createPaymentRow(prisma, consent, {
        status: 'SUBMITTING',
        nextStatusCheckAt: null,
        pollStopped: 'A repeated send was refused: 409',
        reference: 'Order 1001',
      });
    }
    if (kind === 'final')
      return createPaymentRow(prisma, consent, { status: 'COMPLETED', nextStatusCheckAt: null });
    return createPaymentRow(prisma, consent, { nextStatusCheckAt: new Date(Date.now() + 60_000) });
  };
  /** Every parked payment of this file's merchant, following the pages. */
  async function walk(client: ApiClient, limit: number) {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { data: { id: string }[]; meta: { nextCursor: string | null } } } =
        await client.get(`/admin/payments/parked?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      ids.push(...page.body.data.map((p) => p.id));
      cursor = page.body.meta.nextCursor;
    } while (cursor);
    return ids;
  }
  const eventsOf = (paymentId: string) =>
    prisma.merchantEvent.findMany({
      where: { merchantId: tenant.merchant.merchant.id, data: { path: ['paymentId'], equals: paymentId } },
    });

  it('lists exactly the parked payments, oldest first, whatever the mix and page size', async () => {
    await assertProperty(
      fc.asyncProperty(
        fc.array(fc.constantFrom<Kind>('parked', 'due', 'final'), { maxLength: 40 }),
        fc.integer({ min: 1, max: 30 }),
        async (kinds, limit) => {
          const before = new Set(await walk(stack.operator, 100));
          const made = [];
          for (const kind of kinds) made.push({ kind, row: await payment(kind) });
          const listed = (await walk(stack.operator, limit)).filter((id) => !before.has(id));
          expect(listed).toEqual(made.filter((m) => m.kind === 'parked').map((m) => m.row.id));
          // Settled here, so the next run starts from none of its own.
          for (const id of listed)
            await stack.operator.post(`/admin/payments/${id}/settle`, { status: 'FAILED' });
        },
      ),
      8,
    );
  });

  it('reads parked payments through their partial index, whose predicate is the code’s', async () => {
    // Planned with a sequential scan made too dear to choose, which a predicate that drifted from the
    // index's could not avoid: the table of final payments is never read to find the few parked.
    const plans = await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      const plan = async (text: string, ...values: unknown[]) =>
        (await tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${text}`, ...values))
          .map((row) => row['QUERY PLAN'])
          .join('\n');
      return [
        await plan(PARKED_PAYMENT_SQL.first.text, 100),
        await plan(PARKED_PAYMENT_SQL.after.text, 100, '0190b3c4-0000-7000-8000-000000000000'),
        await plan(PAYMENT_STATS_SQL.parked.text),
      ];
    });
    for (const plan of plans) expect(plan).toContain('payments_parked_idx');
  });

  it('shows what the bank needs to find it, and settles it once with the merchant’s event', async () => {
    const parked = await payment('parked');
    const [view] = (await stack.operator.get('/admin/payments/parked?limit=100')).body.data.filter(
      (p: { id: string }) => p.id === parked.id,
    );
    expect(view).toEqual({
      id: parked.id,
      merchantId: tenant.merchant.merchant.id,
      merchantName: tenant.merchant.merchant.name,
      kind: 'SINGLE',
      status: 'SUBMITTING',
      amount: { amount: '10.00', currency: 'GBP' },
      paymentIdempotencyId: parked.paymentIdempotencyId,
      upstreamPaymentId: null,
      reason: 'A repeated send was refused: 409',
      createdAt: parked.createdAt.toISOString(),
      reference: 'Order 1001',
      userReference: dataOf<{ reference: string }>(await tenant.client.get(`/v1/users/${tenant.userId}`))
        .reference,
    });

    // Two operators settle it at once: one wins, the other is told, one event goes out.
    const answers = await Promise.all(
      (['COMPLETED', 'FAILED'] as const).map((status) =>
        stack.operator.post(`/admin/payments/${parked.id}/settle`, { status, note: 'Bank ref 42' }),
      ),
    );
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    const lost = answers.filter((a) => a.status !== 200);
    expect(lost).toHaveLength(1);
    expect([404, 409]).toContain(lost[0].status);
    const settled = await prisma.payment.findUniqueOrThrow({ where: { id: parked.id } });
    expect(settled.status).toBe(won[0].body.data.status);
    expect(settled.statusDetails).toMatchObject({ reason: 'Bank ref 42', settledBy: 'operator' });
    const events = await eventsOf(parked.id);
    expect(events.map((e) => e.type)).toEqual([
      settled.status === 'COMPLETED' ? 'PAYMENT_COMPLETED' : 'PAYMENT_FAILED',
    ]);
    // Settled is final: no second settlement, no second event.
    expect(
      (await stack.operator.post(`/admin/payments/${parked.id}/settle`, { status: 'FAILED' })).status,
    ).toBe(404);
    expect(await eventsOf(parked.id)).toHaveLength(1);
  });

  it('refuses what is not parked, bad input, and anyone but the operator', async () => {
    const due = await payment('due');
    const final = await payment('final');
    const parked = await payment('parked');
    for (const id of [due.id, final.id, '0190b3c4-0000-7000-8000-000000000000', 'nope']) {
      const refused = await stack.operator.post(`/admin/payments/${id}/settle`, { status: 'COMPLETED' });
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe('NOT_FOUND');
    }
    for (const body of [
      {},
      { status: 'PENDING' },
      { status: 'COMPLETED', note: '' },
      { status: 'FAILED', note: 7 },
    ]) {
      const refused = await stack.operator.post(`/admin/payments/${parked.id}/settle`, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect((await tenant.client.get('/admin/payments/parked')).status).toBe(403);
    expect(
      (await tenant.client.post(`/admin/payments/${parked.id}/settle`, { status: 'FAILED' })).status,
    ).toBe(403);
    expect((await prisma.payment.findUniqueOrThrow({ where: { id: parked.id } })).status).toBe('SUBMITTING');
  });

  it('expires a VRP consent nobody authorised once its callback can no longer come, once, however many scans', async () => {
    const user = { id: tenant.userId, merchantId: tenant.merchant.merchant.id };
    const awaiting = { consentId: '', consentToken: 'unused', status: 'AWAITING_AUTHORIZATION' };
    const old = await createVrpConsentRow(prisma, stack.api.config, user, {
      ...awaiting,
      consentId: 'vrp-old',
    });
    const fresh = await createVrpConsentRow(prisma, stack.api.config, user, {
      ...awaiting,
      consentId: 'vrp-fresh',
    });
    const dataConsent = await consentRow();
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await prisma.consent.updateMany({
      where: { id: { in: [old.id, dataConsent.id] } },
      data: { createdAt: twoHoursAgo },
    });
    await prisma.consent.update({
      where: { id: dataConsent.id },
      data: { status: 'AWAITING_AUTHORIZATION' },
    });

    const lifecycle = stack.api.app.get(ConsentExpiryScanService);
    const scans = await Promise.all([lifecycle.scanExpiry(), lifecycle.scanExpiry()]);
    expect(scans.map((s) => s.abandoned).reduce((a, b) => a + b)).toBe(1);
    expect((await lifecycle.scanExpiry()).abandoned).toBe(0);

    const rows = await prisma.consent.findMany({ where: { id: { in: [old.id, fresh.id, dataConsent.id] } } });
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(old.id)).toMatchObject({ status: 'EXPIRED', lastErrorCode: 'AUTHORISATION_ABANDONED' });
    expect(byId.get(fresh.id)?.status).toBe('AWAITING_AUTHORIZATION');
    expect(byId.get(dataConsent.id)?.status).toBe('AWAITING_AUTHORIZATION');
    const told = await prisma.merchantEvent.findMany({
      where: { merchantId: user.merchantId, data: { path: ['consentId'], equals: old.id } },
    });
    expect(told.map((e) => e.type)).toEqual(['CONSENT_FAILED']);
    const view = await tenant.client.get(`/v1/consents/${old.id}`);
    expect(view.body.data.status).toBe('EXPIRED');
  });
});
