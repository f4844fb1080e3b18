import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { dataOf, onboard, paymentBodies, REDIRECT_URL, type Tenant, useStack } from './kit/index.js';

type Created = {
  requestId: string;
  hostedUrl: string;
  institutionId: string;
  authorisationExpiresAt: string;
};
type Request = { requestId: string; status: { currentStatus: string }; consentId: string | null };
type Details = { field: string; issue: string }[];

/**
 * Commercial VRP through the upstream's hosted page, end to end: the request made through the BFF, the
 * user approving it on the sandbox's page and sent back to the merchant, the consent taken from the
 * request's result, and payments within its limits.
 */
describe('api: hosted commercial VRP requests', () => {
  const stack = useStack();
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    [tenant, other] = [await onboard(stack), await onboard(stack)];
  });

  const create = (body = paymentBodies.hostedVrpRequest(), key = `hosted-${Math.random()}`) =>
    tenant.client.post(`/v1/users/${tenant.userId}/hosted/vrp-requests`, body, {
      headers: { 'idempotency-key': key },
    });
  const read = (requestId: string, client = tenant.client) =>
    client.get(`/v1/hosted/vrp-requests/${requestId}`);

  /** The user on the hosted page: approves, and is sent to the merchant's page (not to us). */
  async function approveOnHostedPage(hostedUrl: string): Promise<URL> {
    const page = new URL(hostedUrl);
    const answer = await fetch(new URL(page.pathname + page.search, stack.sandbox.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ decision: 'approve' }).toString(),
    });
    await answer.arrayBuffer();
    expect(answer.status).toBe(302);
    return new URL(answer.headers.get('location')!);
  }

  it('is created, approved on the hosted page, becomes our consent, and is paid under within its limits', async () => {
    const created = dataOf<Created>(await create(), 201);
    expect(created).toMatchObject({ institutionId: 'sandbox-payments', hostedUrl: expect.any(String) });
    const before = dataOf<Request>(await read(created.requestId), 200);
    expect([before.status.currentStatus, before.consentId]).toEqual(['created', null]);

    const back = await approveOnHostedPage(created.hostedUrl);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URL);
    // The merchant's page never gets a consent token: only a one-time token, useless without our credentials.
    expect(back.searchParams.has('consent')).toBe(false);

    // Several first reads at once: one consent, whoever wins.
    const reads = await Promise.all(Array.from({ length: 4 }, () => read(created.requestId)));
    const ids = new Set(reads.map((r) => dataOf<Request>(r, 200).consentId));
    expect(ids.size).toBe(1);
    const [consentId] = [...ids];
    expect(consentId).toMatch(/^[0-9a-f-]{36}$/);
    const rows = await stack.api.app
      .get(PrismaService)
      .consent.findMany({ where: { merchantId: tenant.merchant.merchant.id, kind: 'VRP_COMMERCIAL' } });
    expect(rows.filter((r) => r.id === consentId)).toHaveLength(1);

    const consent = dataOf<{ kind: string; status: string }>(
      await tenant.client.get(`/v1/consents/${consentId}`),
      200,
    );
    expect(consent).toMatchObject({ kind: 'VRP_COMMERCIAL', status: 'AUTHORIZED' });
    const view = dataOf<{ controlParameters: { maxAmountPerPayment: unknown } }>(
      await tenant.client.get(`/v1/vrp/consents/${consentId}`),
      200,
    );
    expect(view.controlParameters.maxAmountPerPayment).toEqual({ amount: '50.00', currency: 'GBP' });

    const pay = (amount: string, key: string) =>
      tenant.client.post(
        `/v1/vrp/consents/${consentId}/payments`,
        { amount: { amount, currency: 'GBP' } },
        { headers: { 'idempotency-key': key } },
      );
    // Taken by the bank: a commercial payment without psuInteractionType would be refused (FAILED).
    const paid = dataOf<{ id: string; status: string }>(await pay('30.00', 'hosted-pay-1'), 201);
    expect(['PENDING', 'COMPLETED']).toContain(paid.status);
    const overPayment = await pay('50.01', 'hosted-pay-2');
    expect([overPayment.status, overPayment.body.error.code]).toEqual([422, 'VRP_LIMIT_EXCEEDED']);
    expect((await pay('45.00', 'hosted-pay-3')).status).toBe(201);
    // 75 paid of the month's 80: 10 more is within the per-payment maximum but not the period's.
    const overPeriod = await pay('10.00', 'hosted-pay-4');
    expect([overPeriod.status, overPeriod.body.error.code]).toEqual([422, 'VRP_LIMIT_EXCEEDED']);

    expect((await read(created.requestId, other.client)).status).toBe(404);
  });

  it('refuses bad limits and missing risk details before the upstream is asked, naming the field', async () => {
    const body = paymentBodies.hostedVrpRequest();
    const { riskDetails: _, ...withoutRisk } = body;
    const noRisk = await create(withoutRisk as typeof body);
    expect(noRisk.status, JSON.stringify(noRisk.body)).toBe(400);
    expect((noRisk.body.error.details as Details).map((d) => d.field)).toContain('riskDetails');

    const otherCurrency = await create({
      ...body,
      controlParameters: {
        ...body.controlParameters,
        periodicLimit: { frequency: 'MONTHLY', totalMaxAmount: { amount: '80.00', currency: 'EUR' } },
      },
    });
    expect(otherCurrency.status).toBe(400);
    expect((otherCurrency.body.error.details as Details)[0].field).toBe(
      'controlParameters.periodicLimit.totalMaxAmount.currency',
    );
    const badFrequency = await create({
      ...body,
      controlParameters: {
        ...body.controlParameters,
        periodicLimit: { frequency: 'HOURLY', totalMaxAmount: { amount: '80.00', currency: 'GBP' } },
      },
    });
    expect(badFrequency.status).toBe(400);
    const elsewhere = await create({ ...body, redirectUrl: 'javascript:alert(1)' });
    expect([elsewhere.status, (elsewhere.body.error.details as Details)[0].field]).toEqual([
      400,
      'redirectUrl',
    ]);
  });
});
