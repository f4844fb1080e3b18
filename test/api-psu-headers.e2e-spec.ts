import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import {
  atBank,
  decideAtBank,
  onboard,
  paymentBodies,
  SandboxHttp,
  type Tenant,
  useStack,
} from './kit/index.js';

const REDIRECT = 'https://app.merchant.example/banks/done';
const BANK = 'sandbox-psu-business';
const PSU = { 'psu-id': 'alice-at-bank', 'psu-corporate-id': 'acme-ltd', 'psu-ip-address': '203.0.113.7' };
type Details = { field: string; issue: string }[];

/**
 * A bank that requires the PSU headers (sandbox-psu-business: psu-id, psu-corporate-id, psu-ip-address
 * where an authorisation starts): the BFF reads that from the bank's constraints, refuses a consent
 * without them before the bank is asked, and sends them when the merchant (or the user's browser) gives them.
 */
describe('api: PSU headers an institution requires', () => {
  const stack = useStack();
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await onboard(stack);
    expect((await stack.operator.post('/admin/institutions/refresh')).status).toBeLessThan(300);
  });

  const connectAt = (headers: Record<string, string>, client = tenant.client) =>
    client.post(
      `/v1/users/${tenant.userId}/consents`,
      { institutionId: BANK, redirectUrl: REDIRECT },
      { headers },
    );

  it("says which headers each bank requires, from the bank's constraints", async () => {
    const needs = async (id: string) =>
      (await tenant.client.get(`/v1/institutions/${id}`)).body.data.psuHeaders;
    const all = ['psu-corporate-id', 'psu-id', 'psu-ip-address'];
    expect(await needs(BANK)).toEqual({ connect: all, pay: all });
    expect(await needs('sandbox-redirect')).toEqual({ connect: [], pay: [] });
    const ranged = async (id: string) =>
      (await tenant.client.get(`/v1/institutions/${id}`)).body.data.transactionRange;
    expect([await ranged(BANK), await ranged('sandbox-redirect')]).toEqual([true, false]);
  });

  it('refuses a consent without a required header before the bank is asked, naming each missing one', async () => {
    const none = await connectAt({});
    expect(none.status).toBe(400);
    expect((none.body.error.details as Details).map((d) => d.field).sort()).toEqual([
      'psu-corporate-id',
      'psu-id',
      'psu-ip-address',
    ]);
    expect(none.body.error.message).toContain(BANK);

    const { 'psu-corporate-id': _, ...withoutCorporate } = PSU;
    const one = await connectAt(withoutCorporate);
    expect(one.body.error.details).toEqual([
      { field: 'psu-corporate-id', issue: `header is required by institution ${BANK}` },
    ]);
    const badIp = await connectAt({ ...PSU, 'psu-ip-address': '203.0.113' });
    expect([badIp.status, (badIp.body.error.details as Details)[0].field]).toEqual([400, 'psu-ip-address']);
    const badId = await connectAt({ ...PSU, 'psu-id': 'alic\u00e9' });
    expect([badId.status, (badId.body.error.details as Details)[0].field]).toEqual([400, 'psu-id']);
  });

  it('connects and reads the bank with the headers a merchant backend sends', async () => {
    const before = Date.now();
    const created = await connectAt(PSU);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The bank takes a transaction range: the last two years up to the expiry, as none was named.
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const consent = await stack.api.app
      .get(PrismaService)
      .consent.findUniqueOrThrow({ where: { id: created.body.data.id } });
    const asked = (await sandbox.call('GET', `/consents/${consent.upstreamConsentId}`)).body.data;
    expect(Date.parse(asked.transactionFrom)).toBeGreaterThanOrEqual(before - 730 * 86_400_000 - 1_000);
    expect(Date.parse(asked.transactionFrom)).toBeLessThanOrEqual(Date.now() - 730 * 86_400_000);
    expect(asked.transactionTo).toBe(asked.expiresAt);
    const back = await decideAtBank(
      { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
      created.body.data.authorisationUrl,
    );
    expect(back.location.searchParams.get('status')).toBe('AUTHORIZED');
    const accounts = (await tenant.client.get(`/v1/users/${tenant.userId}/accounts`)).body.data as {
      id: string;
    }[];
    expect(accounts.length).toBeGreaterThan(0);
    const live = await tenant.client.get(`/v1/accounts/${accounts[0].id}/transactions/live`);
    expect(live.status, JSON.stringify(live.body)).toBe(200);
  });

  it("takes a user session's own address as psu-ip-address, whatever address it names", async () => {
    const session = (await tenant.client.post(`/v1/users/${tenant.userId}/sessions`)).body.data
      .token as string;
    const browser = stack.anonymous.as(session);
    const created = await connectAt({ 'psu-id': 'alice-at-bank', 'psu-corporate-id': 'acme-ltd' }, browser);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // A forged address from the browser is not taken for the user's (nor checked: the connection's is used).
    const forged = await connectAt({ ...PSU, 'psu-ip-address': 'not an address' }, browser);
    expect(forged.status, JSON.stringify(forged.body)).toBe(201);
  });

  it('pays at the bank with the headers, and refuses a payment without them before the bank is asked', async () => {
    const pay = (key: string, headers: Record<string, string>) =>
      tenant.client.post(
        `/v1/users/${tenant.userId}/payments`,
        paymentBodies.single({ institutionId: BANK }),
        {
          headers: { 'idempotency-key': key, ...headers },
        },
      );
    const refused = await pay('psu-pay-refused', { 'psu-id': PSU['psu-id'] });
    expect(refused.status).toBe(400);
    expect((refused.body.error.details as Details).map((d) => d.field).sort()).toEqual([
      'psu-corporate-id',
      'psu-ip-address',
    ]);
    const created = await pay('psu-pay', PSU);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // The user is back in their browser at the callback: the token exchange and the payment made there
    // carry the browser's own address (here the test's loopback), counted by rules that change nothing.
    const sandbox = new SandboxHttp(stack.sandbox.url, stack.api.config);
    const counted = async (method: string, path: string) =>
      (
        await sandbox.admin<{ data: { id: string } }>('POST', '/faults', {
          method,
          path,
          header: { name: 'psu-ip-address', value: '127.0.0.1' },
        })
      ).body.data.id;
    const rules = [await counted('POST', '/consent-one-time-token'), await counted('POST', '/payments')];
    try {
      const back = await atBank(stack, created.body.data.authorisationUrl);
      expect(back.query).toMatchObject({ paymentId: created.body.data.id, status: 'PENDING' });
      const listed = (await sandbox.admin<{ data: { id: string; matched: number }[] }>('GET', '/faults')).body
        .data;
      expect(rules.map((id) => listed.find((rule) => rule.id === id)?.matched)).toEqual([1, 1]);
    } finally {
      await sandbox.admin('DELETE', '/faults');
    }
  });
});
