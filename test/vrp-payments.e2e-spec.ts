import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { VrpPaymentsService } from '#libs/domain/payments';
import {
  atBank,
  authorisedVrpConsentRow,
  dataOf,
  eventually,
  merchantCallerOf,
  payee,
  paymentBodies,
  SandboxHttp,
  uniqueName,
  useStack,
  useTenant,
  vrpLimits,
  vrpUser,
} from './kit/index.js';

const LIMITS = vrpLimits(150, 1000);

describe('VRP payments: limits enforced here, atomically', () => {
  const stack = useStack();
  const tenant = useTenant(stack);
  const other = useTenant(stack);
  let prisma: PrismaService;
  let consentId: string;
  let userId: string;
  let user: { id: string; merchantId: string; applicationUserId: string };

  beforeAll(async () => {
    prisma = stack.api.app.get(PrismaService);
    user = await vrpUser(stack, tenant, 'vrp');
    userId = user.id;
    consentId = (await authorisedVrpConsentRow(stack, user, { controlParameters: LIMITS })).id;
  });

  const pay = (
    amount: string,
    key: string | null = uniqueName('pay'),
    client = tenant.client,
    currency = 'GBP',
  ) =>
    client.post(
      `/v1/vrp/consents/${consentId}/payments`,
      { amount: { amount, currency }, reference: 'Sweep' },
      {
        headers: key ? { 'idempotency-key': key } : {},
      },
    );

  it('refuses a payment over the per-payment maximum, a wrong currency, too many decimals, and no Idempotency-Key', async () => {
    const over = await pay('150.01');
    expect([over.status, over.body.error.code]).toEqual([422, 'VRP_LIMIT_EXCEEDED']);
    expect(over.body.error.details[0].issue).toContain('maxAmountPerPayment');
    const euro = await pay('10.00', uniqueName('pay'), tenant.client, 'EUR');
    expect([euro.status, euro.body.error.details[0].field]).toEqual([400, 'amount.currency']);
    const decimals = await pay('10.001');
    expect([decimals.status, decimals.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const keyless = await pay('10.00', null);
    expect([keyless.status, keyless.body.error.details[0].field]).toEqual([400, 'Idempotency-Key']);
  });

  it('is the same payment for the same Idempotency-Key even when our record of the request is gone', async () => {
    const key = uniqueName('lost');
    const first = await pay('2.00', key);
    expect(first.status).toBe(201);
    await prisma.$executeRaw`DELETE FROM idempotency_keys WHERE key = ${key}`;
    const again = await pay('2.00', key);
    expect([again.status, again.body.data.id]).toEqual([201, first.body.data.id]);
    // The same key for another amount is a mistake, said as such.
    await prisma.$executeRaw`DELETE FROM idempotency_keys WHERE key = ${key}`;
    const other = await pay('3.00', key);
    expect([other.status, other.body.error.code]).toEqual([409, 'CONFLICT']);
    expect(await prisma.payment.count({ where: { consentId, amount: '2.00' } })).toBe(1);
  });

  it('returns the same payment for a replayed Idempotency-Key', async () => {
    const key = uniqueName('replay');
    const first = await pay('1.00', key);
    const again = await pay('1.00', key);
    expect(first.status).toBe(201);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(await prisma.payment.count({ where: { consentId, amount: '1.00' } })).toBe(1);
  });

  it('parks, never fails, a payment whose first send lost its answer and whose resend the bank refuses', async () => {
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const path = '/variable-recurring-payments/payments';
    await sandbox.admin('POST', '/faults', { method: 'POST', path, drop: true, count: 1 });
    await sandbox.admin('POST', '/faults', { method: 'POST', path, status: 409, count: 20 });
    try {
      const payment = dataOf(await pay('10.00'), 201);
      // Maybe paid: it keeps counting against the limits and waits for a person, with no event.
      expect(payment.status).toBe('SUBMITTING');
      const row = await prisma.payment.findUniqueOrThrow({ where: { id: payment.id } });
      expect(row.nextStatusCheckAt).toBeNull();
      expect((row.statusDetails as { pollStopped?: string }).pollStopped).toMatch(/^A repeated send/);
      // Parked, so the operator may settle it (a payment a check could still move answers 404). The
      // operator's list spans every merchant of this shared database, oldest first: it is not looked for
      // on one page of it.
      const settled = await stack.operator.post(`/admin/payments/${payment.id}/settle`, { status: 'FAILED' });
      expect(settled.status).toBe(200);
    } finally {
      await sandbox.admin('DELETE', '/faults');
    }
  });

  it('keeps tenants and users apart: another merchant’s consent is 404, a session pays only its own user’s', async () => {
    const theirs = await pay('1.00', uniqueName('pay'), other.client);
    expect([theirs.status, theirs.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await other.client.get(`/v1/vrp/consents/${consentId}/payments`)).status).toBe(404);
    expect((await tenant.client.get('/v1/vrp/consents/not-a-uuid/payments')).status).toBe(404);
    const own = dataOf(await tenant.client.post(`/v1/users/${userId}/sessions`), 201).token;
    expect((await pay('1.00', uniqueName('pay'), tenant.client.as(own))).status).toBe(201);
    const neighbour = dataOf(await tenant.client.post(`/v1/users/${tenant.userId}/sessions`), 201).token;
    expect((await pay('1.00', uniqueName('pay'), tenant.client.as(neighbour))).status).toBe(404);
  });

  it('sets up sweeping VRP through the BFF: limits checked, defaults filled, approved at the bank, then paid within them', async () => {
    const created = dataOf(
      await tenant.client.post(`/v1/users/${userId}/vrp/consents`, paymentBodies.vrpConsent()),
      201,
    );
    expect(created).toMatchObject({
      kind: 'VRP_SWEEPING',
      status: 'AWAITING_AUTHORIZATION',
      controlParameters: {
        psuAuthenticationMethods: ['SCA_NOT_REQUIRED'],
        maxAmountPerPayment: { amount: '100.00', currency: 'GBP' },
        periodicLimits: [
          {
            frequency: 'MONTHLY',
            alignment: 'CONSENT',
            totalMaxAmount: { amount: '30.00', currency: 'GBP' },
          },
        ],
      },
    });
    expect(created.controlParameters.validFrom).toBeTruthy();
    const back = await atBank(stack, created.authorisationUrl);
    expect(back.query).toMatchObject({ consentId: created.id, status: 'AUTHORIZED' });
    expect(dataOf(await tenant.client.get(`/v1/consents/${created.id}`))).toMatchObject({
      kind: 'VRP_SWEEPING',
      status: 'AUTHORIZED',
    });
    const payHere = (amount: string) =>
      tenant.client.post(
        `/v1/vrp/consents/${created.id}/payments`,
        { amount: { amount, currency: 'GBP' } },
        { headers: { 'idempotency-key': uniqueName('sweep') } },
      );
    for (let i = 0; i < 3; i++) expect((await payHere('10.00')).status).toBe(201);
    const refused = await payHere('0.01');
    expect([refused.status, refused.body.error.code]).toEqual([422, 'VRP_LIMIT_EXCEEDED']);
    expect(refused.body.error.details[0].issue).toBe('exceeds periodicLimits[0] (MONTHLY): 0.00 left');
    const details = dataOf(await tenant.client.get(`/v1/vrp/consents/${created.id}`));
    expect(details.id).toBe(created.id);

    // The user cancels the sweep: no more payments, but its history stays readable, page by page.
    expect((await tenant.client.delete(`/v1/consents/${created.id}`)).status).toBe(204);
    const firstPage = await tenant.client.get(`/v1/vrp/consents/${created.id}/payments?limit=2`);
    expect(dataOf(firstPage)).toHaveLength(2);
    const rest = await tenant.client.get(firstPage.body.links.next);
    expect(dataOf(rest)).toHaveLength(1);
    expect((await payHere('1.00')).status).toBe(409);
  });

  it('names the consent’s payee on every VRP payment, as our OpenAPI document requires', async () => {
    const created = dataOf(
      await tenant.client.post(`/v1/users/${userId}/vrp/consents`, paymentBodies.vrpConsent()),
      201,
    );
    expect((await atBank(stack, created.authorisationUrl)).query.status).toBe('AUTHORIZED');
    const paid = await tenant.client.post(
      `/v1/vrp/consents/${created.id}/payments`,
      { amount: { amount: '5.00', currency: 'GBP' } },
      { headers: { 'idempotency-key': uniqueName('payee') } },
    );
    const payment = dataOf(paid, 201);
    const doc = (await stack.anonymous.get('/docs-json')).body;
    const required: string[] = doc.components.schemas.PayeeOutput.required;
    expect(required).toEqual(expect.arrayContaining(['name', 'accountIdentifications']));
    const answers = {
      'POST /v1/vrp/consents/{id}/payments': payment,
      'GET /v1/payments/{id}': dataOf(await tenant.client.get(`/v1/payments/${payment.id}`)),
      'GET /v1/users/{id}/payments': dataOf<{ id: string }[]>(
        await tenant.client.get(`/v1/users/${userId}/payments`),
      ).find((p) => p.id === payment.id),
      'GET /v1/vrp/consents/{id}/payments': dataOf<{ id: string }[]>(
        await tenant.client.get(`/v1/vrp/consents/${created.id}/payments`),
      ).find((p) => p.id === payment.id),
    };
    // Kept on the payment itself, as the bank was asked to pay it.
    expect((await prisma.payment.findUniqueOrThrow({ where: { id: payment.id } })).payee).toEqual(payee());
    for (const [route, answer] of Object.entries(answers)) {
      const shown = (answer as { payee: Record<string, unknown> }).payee;
      for (const key of required) expect(shown, route).toHaveProperty(key);
      expect(shown, route).toEqual(payee());
    }
  });

  it('shows on the consent exactly the headroom the limit check allows, at a period boundary', async () => {
    // The period is 10 days old; a payment made at its very end (the next period's first instant) counts in
    // the next period, for the check and for the consent's view alike.
    const validFrom = new Date(Date.now() - 10 * 86_400_000).toISOString();
    const local = { ...vrpLimits('100.00', '30.00'), validFrom };
    const user = await prisma.user.findUniqueOrThrow({ where: { id: userId } });
    // The bank's own limits are wider: what is checked here is the BFF's.
    const id = (
      await authorisedVrpConsentRow(stack, user, {
        controlParameters: local,
        bankLimits: { ...vrpLimits(150, 5000), validFrom },
      })
    ).id;
    type Limit = {
      currentPeriod: { start: string; end: string };
      limitInCurrentPeriod: { amount: string };
      paidInCurrentPeriod: { amount: string };
      remainingInCurrentPeriod: { amount: string };
    };
    const limit = async () =>
      dataOf(await tenant.client.get(`/v1/vrp/consents/${id}`)).controlParameters.periodicLimits[0] as Limit;
    const payHere = (amount: string) =>
      tenant.client.post(
        `/v1/vrp/consents/${id}/payments`,
        { amount: { amount, currency: 'GBP' } },
        { headers: { 'idempotency-key': uniqueName('edge') } },
      );

    const before = await limit();
    expect(Date.parse(before.currentPeriod.start)).toBe(Date.parse(validFrom));
    const next = await stack.api.app
      .get(VrpPaymentsService)
      .pay(
        merchantCallerOf(tenant),
        id,
        { amount: '25.00', currency: 'GBP' },
        uniqueName('next-period'),
        new Date(before.currentPeriod.end),
      );
    expect(next.createdAt).toBe(new Date(before.currentPeriod.end).toISOString());

    const now = await limit();
    expect(now).toMatchObject({
      currentPeriod: before.currentPeriod,
      limitInCurrentPeriod: { amount: '30.00' },
      paidInCurrentPeriod: { amount: '0.00' },
      remainingInCurrentPeriod: { amount: '30.00' },
    });
    // What the view calls the headroom is what the check lets through: not a cent more.
    const over = await payHere('30.01');
    expect([over.status, over.body.error?.details?.[0]?.issue]).toEqual([
      422,
      'exceeds periodicLimits[0] (MONTHLY): 30.00 left',
    ]);
    expect((await payHere('30.00')).status).toBe(201);
    expect(await limit()).toMatchObject({
      paidInCurrentPeriod: { amount: '30.00' },
      remainingInCurrentPeriod: { amount: '0.00' },
    });
  });

  it('takes every periodic-limit frequency the upstream knows', async () => {
    for (const frequency of ['DAILY', 'WEEKLY', 'EVERY_TWO_WEEKS', 'MONTHLY', 'YEARLY']) {
      const body = paymentBodies.vrpConsent();
      body.controlParameters.periodicLimits[0].frequency = frequency;
      const created = await tenant.client.post(`/v1/users/${userId}/vrp/consents`, body);
      expect(created.status, frequency).toBe(201);
    }
  });

  it('refuses VRP limits that make no sense, with the field named', async () => {
    const limits = paymentBodies.vrpConsent().controlParameters;
    const cases: [object, string][] = [
      [{ ...limits, periodicLimits: [] }, 'controlParameters.periodicLimits'],
      [
        {
          ...limits,
          periodicLimits: [{ frequency: 'HOURLY', totalMaxAmount: { amount: '1.00', currency: 'GBP' } }],
        },
        'controlParameters.periodicLimits.0.frequency',
      ],
      [
        {
          ...limits,
          periodicLimits: [{ frequency: 'MONTHLY', totalMaxAmount: { amount: '1.00', currency: 'EUR' } }],
        },
        'controlParameters.periodicLimits[0].totalMaxAmount.currency',
      ],
      [
        {
          ...limits,
          periodicLimits: [
            { frequency: 'MONTHLY', totalMaxAmount: { amount: '1.00', currency: 'GBP' } },
            { frequency: 'MONTHLY', totalMaxAmount: { amount: '2.00', currency: 'GBP' } },
          ],
        },
        'controlParameters.periodicLimits[1].frequency',
      ],
      [{ ...limits, validTo: '2001-01-01T00:00:00Z' }, 'controlParameters.validTo'],
      [
        { ...limits, maxAmountPerPayment: { amount: '-1', currency: 'GBP' } },
        'controlParameters.maxAmountPerPayment',
      ],
    ];
    for (const [controlParameters, field] of cases) {
      const response = await tenant.client.post(
        `/v1/users/${userId}/vrp/consents`,
        paymentBodies.vrpConsent({ controlParameters: controlParameters as never }),
      );
      expect([response.status, response.body.error?.code], field).toEqual([400, 'VALIDATION_FAILED']);
      expect(
        response.body.error.details.some((d: { field: string }) => d.field.startsWith(field)),
        `${field}: ${JSON.stringify(response.body.error.details)}`,
      ).toBe(true);
    }
  });

  it('lets exactly the payments that fit the monthly limit through, of 20 at once, and never overspends', async () => {
    const counted = { consentId, status: { notIn: ['FAILED', 'DECLINED', 'REJECTED'] } };
    const before = Number(
      (await prisma.payment.aggregate({ where: counted, _sum: { amount: true } }))._sum.amount ?? 0,
    );
    const fit = Math.floor((1000 - before) / 100);
    const answers = await Promise.all(Array.from({ length: 20 }, () => pay('100.00')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(fit);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(20 - fit);
    for (const r of refused) {
      expect([r.status, r.body.error.code]).toEqual([422, 'VRP_LIMIT_EXCEEDED']);
      expect(r.body.error.details[0].issue).toContain('MONTHLY');
    }
    const paid = await prisma.payment.aggregate({ where: counted, _sum: { amount: true } });
    expect(Number(paid._sum.amount)).toBeLessThanOrEqual(1000);
    expect(Number(paid._sum.amount)).toBe(before + fit * 100);
    const listed = await tenant.client.get(`/v1/vrp/consents/${consentId}/payments`);
    expect(
      listed.body.data.filter((p: { amount: { amount: string } }) => p.amount.amount === '100.00'),
    ).toHaveLength(fit);
    expect(listed.body.data[0]).toMatchObject({ amount: { amount: '100.00', currency: 'GBP' }, consentId });
  });

  it('resets the headroom in the next period', async () => {
    // The bank's calendar moves on a month, and so does the "now" our check reads.
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    expect((await sandbox.admin('POST', '/clock/advance', { days: 32 })).status).toBeLessThan(300);
    const service = stack.api.app.get(VrpPaymentsService);
    const next = await service.pay(
      merchantCallerOf(tenant),
      consentId,
      { amount: '100.00', currency: 'GBP' },
      uniqueName('next-month'),
      new Date(Date.now() + 32 * 86_400_000),
    );
    expect(next.amount).toEqual({ amount: '100.00', currency: 'GBP' });
  });

  it('refuses a payment when the consent is revoked between the first read and the row lock', async () => {
    const revoked = await authorisedVrpConsentRow(stack, user, { controlParameters: LIMITS });
    const service = stack.api.app.get(VrpPaymentsService);
    let payment: Promise<unknown> | undefined;
    await prisma.$transaction(
      async (tx) => {
        // Hold the consent's row lock, so the payment reads AUTHORIZED and then waits on the lock.
        await tx.$queryRaw`SELECT id FROM consents WHERE id = ${revoked.id}::uuid FOR UPDATE`;
        const [{ pid }] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
        payment = service
          .pay(
            merchantCallerOf(tenant),
            revoked.id,
            { amount: '10.00', currency: 'GBP' },
            uniqueName('revoked'),
          )
          .then(
            () => 'paid',
            (error: unknown) => error,
          );
        await eventually(
          'the payment waiting on the consent row lock',
          async () => {
            const [{ waiting }] = await prisma.$queryRaw<{ waiting: bigint }[]>`
              SELECT count(*) AS waiting FROM pg_stat_activity WHERE ${pid}::int = ANY(pg_blocking_pids(pid))`;
            return waiting > 0n ? true : undefined;
          },
          10_000,
        );
        await tx.consent.update({ where: { id: revoked.id }, data: { status: 'REVOKED' } });
      },
      { timeout: 20_000 },
    );
    expect(await payment).toMatchObject({ code: 'CONSENT_NOT_AUTHORISED' });
    expect(await prisma.payment.count({ where: { consentId: revoked.id } })).toBe(0);
  });

  it('gives VRP payments stored with an empty payee their consent’s, once, by migration', async () => {
    const consent = await authorisedVrpConsentRow(stack, user, {
      controlParameters: LIMITS,
      initiationDetails: { reference: 'Sweep', payee: payee() },
    });
    // As payments were stored before they kept their payee (FAILED: it counts against no limit).
    const old = await prisma.payment.create({
      data: {
        merchantId: user.merchantId,
        consentId: consent.id,
        kind: 'VRP',
        paymentIdempotencyId: uniqueName('old').slice(0, 35),
        status: 'FAILED',
        amount: '1.00',
        currency: 'GBP',
        payee: {},
      },
    });
    const backfill = await readFile(
      new URL('../prisma/migrations/20261123191824_vrp_payee_backfill/migration.sql', import.meta.url),
      'utf8',
    );
    await prisma.$executeRawUnsafe(backfill);
    expect((await prisma.payment.findUniqueOrThrow({ where: { id: old.id } })).payee).toEqual(payee());
    expect(dataOf(await tenant.client.get(`/v1/payments/${old.id}`)).payee).toEqual(payee());
  });

  it('refuses a funds confirmation in another currency than the consent’s, as it refuses such a payment', async () => {
    const response = await tenant.client.post(`/v1/vrp/consents/${consentId}/funds-confirmation`, {
      amount: { amount: '10.00', currency: 'EUR' },
    });
    expect([response.status, response.body.error?.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(response.body.error.details).toEqual([
      expect.objectContaining({ field: 'amount.currency', issue: expect.stringContaining('GBP') }),
    ]);
    const same = await tenant.client.post(`/v1/vrp/consents/${consentId}/funds-confirmation`, {
      amount: { amount: '10.00', currency: 'GBP' },
    });
    expect(same.status).toBe(200);
  });
});
