import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConsentReconciliationService } from '#libs/domain/consents';
import { UserRepository } from '#libs/domain/users';
import { createBffClient } from '../libs/merchant-sdk/src/index.js';
import {
  bankRedirect,
  createUser,
  dataOf,
  decideAtBank,
  eventually,
  type Tenant,
  useStack,
  useTenant,
  WAIT,
} from './kit/index.js';

const HOUR = 3_600_000;
const PASSWORD = 'secret';
const CODE = '123456';
type Outcome = 'authorised' | 'rejected' | 'abandoned' | 'failed' | 'pending';
type Step = (tenant: Tenant) => Promise<void>;

/**
 * Connection conversion (GET /v1/insights/conversion) against a count the test keeps itself, over a
 * scripted mix at two institutions: approvals with and without the user coming back, rejections,
 * abandonments, failures and consents still pending, two merchants apart.
 */
describe('insights: connection conversion by institution and day', () => {
  // Its own database: the operator's figures cover every merchant there is, and reconciliation every consent.
  const stack = useStack({ ownDatabase: 'conversion', worker: true });
  const tenant = useTenant(stack);
  const other = useTenant(stack);
  const expected = new Map<string, Record<Outcome, number>>();

  const apps = () => ({ apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url });
  const tally = (institutionId: string, outcome: Outcome) => {
    const counts = expected.get(institutionId) ?? {
      authorised: 0,
      rejected: 0,
      abandoned: 0,
      failed: 0,
      pending: 0,
    };
    counts[outcome] += 1;
    expected.set(institutionId, counts);
  };
  /** A customer of its own for each consent: a second consent at a bank would take over the first's accounts. */
  const customer = async (t: Tenant) =>
    (await createUser(stack.api.app.get(UserRepository), t.merchant.merchant.id)).id;
  const redirect = async (t: Tenant) =>
    dataOf<{ id: string; authorisationUrl: string }>(
      await t.client.post(
        `/v1/users/${await customer(t)}/consents`,
        { institutionId: 'sandbox-redirect', redirectUrl: 'https://app.merchant.example/done' },
        { headers: { 'idempotency-key': randomUUID() } },
      ),
      201,
    );
  const embedded = async (t: Tenant) => {
    const started = dataOf<{ id: string }>(
      await t.client.post(`/v1/users/${await customer(t)}/consents/embedded`, {
        institutionId: 'sandbox-embedded',
        credentials: { id: 'psu-1', password: PASSWORD },
      }),
      201,
    );
    dataOf(
      await t.client.post(`/v1/consents/${started.id}/sca-method`, { scaMethodId: 'sbx-push-otp' }),
      200,
    );
    return started.id;
  };
  /** Each step of the mix, with the outcome it is counted under here. */
  const steps: [string, Outcome, Step][] = [
    [
      'sandbox-redirect',
      'authorised',
      async (t) => void (await decideAtBank(apps(), (await redirect(t)).authorisationUrl)),
    ],
    [
      'sandbox-redirect',
      'authorised',
      async (t) => void (await bankRedirect(apps(), (await redirect(t)).authorisationUrl)),
    ],
    [
      'sandbox-redirect',
      'rejected',
      async (t) => void (await decideAtBank(apps(), (await redirect(t)).authorisationUrl, 'deny')),
    ],
    [
      'sandbox-redirect',
      'rejected',
      async (t) => void (await bankRedirect(apps(), (await redirect(t)).authorisationUrl, 'deny')),
    ],
    ['sandbox-redirect', 'abandoned', async (t) => void (await redirect(t))],
    [
      'sandbox-embedded',
      'authorised',
      async (t) => {
        dataOf(await t.client.post(`/v1/consents/${await embedded(t)}/sca-code`, { code: CODE }), 202);
      },
    ],
    [
      'sandbox-embedded',
      'failed',
      async (t) => {
        const id = await embedded(t);
        for (let i = 0; i < 3; i++) await t.client.post(`/v1/consents/${id}/sca-code`, { code: '999999' });
      },
    ],
  ];

  beforeAll(async () => {
    for (const [institutionId, outcome, step] of [...steps, ...steps.slice(0, 3), steps[4]]) {
      await step(tenant);
      tally(institutionId, outcome);
    }
    await steps[0][2](other);
    // The users who never came back, settled as the reconciliation would after their callbacks lapsed.
    await stack.api.app.get(ConsentReconciliationService).reconcile(new Date(Date.now() + 2 * HOUR));
    // Started after that reconciliation: still pending.
    await redirect(tenant);
    tally('sandbox-redirect', 'pending');
  });

  const COUNTS = ['started', 'authorised', 'rejected', 'abandoned', 'failed', 'pending', 'firstSynced'];
  /** Counts of each institution: `rows` summed (days: a run across midnight UTC splits a cohort). */
  const totals = (rows: { institutionId: string; [field: string]: unknown }[]) => {
    const byInstitution = new Map<string, Record<string, number>>();
    for (const r of rows) {
      const sum = byInstitution.get(r.institutionId) ?? {};
      for (const k of COUNTS) sum[k] = (sum[k] ?? 0) + (r[k] as number);
      byInstitution.set(r.institutionId, sum);
    }
    return byInstitution;
  };

  it("counts each of the merchant's consents once, under the outcome it reached, bank by bank", async () => {
    const bff = createBffClient({ baseUrl: stack.api.url, token: tenant.merchant.apiKey.key });
    // First syncs run on the worker: every authorised consent reaches one (the sandbox's banks answer).
    const conversion = await eventually(
      'every authorised consent first-synced',
      async () => {
        const answer = await bff.insights.conversion();
        const all = [...totals(answer.institutions).values()];
        return all.every((t) => t.firstSynced === t.authorised) ? answer : undefined;
      },
      WAIT.work,
    );
    const today = new Date().toISOString().slice(0, 10);
    expect(conversion.to).toBe(today);
    const got = totals(conversion.institutions);
    // The days hold the same consents as the range's totals.
    expect(totals(conversion.days)).toEqual(got);
    expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [institutionId, counts] of expected) {
      const started = Object.values(counts).reduce((a, b) => a + b, 0);
      expect(got.get(institutionId), institutionId).toEqual({
        ...counts,
        started,
        firstSynced: counts.authorised,
      });
    }
    for (const row of [...conversion.institutions, ...conversion.days]) {
      if (row.authorised > 0) expect(row.medianSecondsToAuthorised).toBeGreaterThanOrEqual(0);
      else expect(row.medianSecondsToAuthorised).toBeNull();
      expect(row.medianSecondsToFirstSync === null).toBe(row.firstSynced === 0);
    }
  });

  it("answers the operator across merchants, or one merchant's, and refuses a range it cannot read", async () => {
    const all = dataOf(await stack.operator.get('/admin/insights/conversion'), 200);
    const redirectStarted = (answer: { institutions: { institutionId: string; started: number }[] }) =>
      answer.institutions.find((r) => r.institutionId === 'sandbox-redirect')?.started ?? 0;
    const mine = dataOf(await tenant.client.get('/v1/insights/conversion'), 200);
    const theirs = dataOf(
      await stack.operator.get(`/admin/insights/conversion?merchantId=${other.merchant.merchant.id}`),
      200,
    );
    expect(redirectStarted(theirs)).toBe(1);
    expect(redirectStarted(all)).toBe(redirectStarted(mine) + 1);
    // Merchants see only their own: the other merchant's consent is not in the first's figures.
    const otherView = dataOf(await other.client.get('/v1/insights/conversion'), 200);
    expect(redirectStarted(otherView)).toBe(1);

    for (const [query, field] of [
      ['from=2026-02-30', 'from'],
      ['to=yesterday', 'to'],
      ['from=2026-11-10&to=2026-11-01', 'from'],
      ['from=2024-01-01&to=2026-01-01', 'from'],
    ]) {
      const refused = await tenant.client.get(`/v1/insights/conversion?${query}`);
      expect(refused.status, query).toBe(400);
      expect(JSON.stringify(refused.body), query).toContain(field);
    }
    expect((await tenant.client.get('/admin/insights/conversion')).status).toBe(403);
  });
});
