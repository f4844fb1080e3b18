import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { VrpPaymentsService } from '#libs/domain/payments';
import { UserRepository } from '#libs/domain/users';
import { createVrpConsentRow, uniqueName } from '#libs/testing';
import { onboard, startStack, type Stack, type Tenant } from './support/api-kit.js';
import { authorisedSandboxVrpConsent } from './support/bank-consents.js';
import { SandboxHttp } from './support/sandbox-http.js';

const LIMITS = {
  psuAuthenticationMethods: ['SCA_NOT_REQUIRED'],
  maxAmountPerPayment: { amount: 150, currency: 'GBP' },
  periodicLimits: [
    { frequency: 'MONTHLY', alignment: 'CONSENT', totalMaxAmount: { amount: 1000, currency: 'GBP' } },
  ],
};

describe('VRP payments: limits enforced here, atomically', () => {
  let stack: Stack;
  let tenant: Tenant;
  let other: Tenant;
  let prisma: PrismaService;
  let consentId: string;

  beforeAll(async () => {
    stack = await startStack();
    prisma = stack.api.app.get(PrismaService);
    tenant = await onboard(stack);
    other = await onboard(stack);
    const user = await stack.api.app
      .get(UserRepository)
      .create(tenant.merchant.merchant.id, { reference: uniqueName('vrp') });
    const upstream = await authorisedSandboxVrpConsent(
      stack.sandbox.url,
      stack.api.config,
      user.applicationUserId,
      undefined,
      LIMITS,
    );
    consentId = (
      await createVrpConsentRow(prisma, stack.api.config, user, { ...upstream, controlParameters: LIMITS })
    ).id;
  });
  afterAll(async () => {
    await stack?.close();
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

  it('returns the same payment for a replayed Idempotency-Key', async () => {
    const key = uniqueName('replay');
    const first = await pay('1.00', key);
    const again = await pay('1.00', key);
    expect(first.status).toBe(201);
    expect(again.body.data.id).toBe(first.body.data.id);
    expect(await prisma.payment.count({ where: { consentId, amount: '1.00' } })).toBe(1);
  });

  it('keeps tenants apart: another merchant’s consent is 404, and a session may not pay', async () => {
    const theirs = await pay('1.00', uniqueName('pay'), other.client);
    expect([theirs.status, theirs.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await other.client.get(`/v1/vrp/consents/${consentId}/payments`)).status).toBe(404);
    expect((await tenant.client.get('/v1/vrp/consents/not-a-uuid/payments')).status).toBe(404);
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
      { merchantId: tenant.merchant.merchant.id },
      consentId,
      { amount: '100.00', currency: 'GBP' },
      new Date(Date.now() + 32 * 86_400_000),
    );
    expect(next.amount).toEqual({ amount: '100.00', currency: 'GBP' });
  });
});
