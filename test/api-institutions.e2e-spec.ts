import { beforeAll, describe, expect, it } from 'vitest';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import {
  createMerchant,
  createUser,
  type Envelope,
  type ErrorBody,
  sessionToken,
  type Stack,
  uniqueName,
  useStack,
} from './kit/index.js';

type InstitutionBody = { id: string; name: string; countries: string[]; features: string[] };

const SANDBOX_IDS = [
  'sandbox-embedded',
  'sandbox-flaky',
  'sandbox-payments',
  'sandbox-psu-business',
  'sandbox-redirect',
];

describe('api: institutions', () => {
  const stack = useStack();
  let api: Stack['api'];
  let key: string;
  let admin: string;

  const list = async (path: string, token = key) => {
    const response = await stack.anonymous.as(token).get(path);
    expect(response.status, path).toBe(200);
    return response.body as Envelope<InstitutionBody[]>;
  };
  /** Other suites may add cache rows of their own; these tests look at the sandbox's. */
  const sandboxIds = (items: InstitutionBody[]) =>
    items.map((i) => i.id).filter((id) => SANDBOX_IDS.includes(id));

  beforeAll(async () => {
    api = stack.api;
    key = (await createMerchant(api)).apiKey.key;
    admin = api.config.api.adminToken;
    const refreshed = await stack.anonymous.as(admin).post('/admin/institutions/refresh');
    expect(refreshed.status).toBe(200);
  });

  it('refreshes from the upstream, upserting and deleting what the upstream no longer lists', async () => {
    const prisma = api.app.get(PrismaService);
    const stale = uniqueName('stale-bank');
    await prisma.institution.create({
      data: { id: stale, name: 'Gone Bank', raw: {}, refreshedAt: new Date(Date.now() - 60_000) },
    });
    const response = await stack.anonymous.as(admin).post('/admin/institutions/refresh');
    expect(response.status).toBe(200);
    const { data } = response.body as Envelope<{ count: number; deleted: number }>;
    expect(data.count).toBeGreaterThanOrEqual(SANDBOX_IDS.length);
    // Gone after this refresh, whichever refresh deleted it: other files refresh the same shared
    // reference table at any time (their own, or the worker's), so this one's `deleted` may be 0.
    expect(await prisma.institution.findUnique({ where: { id: stale } })).toBeNull();
    expect((await stack.anonymous.as(key).post('/admin/institutions/refresh')).status).toBe(403);
  });

  it('lists with features, filters by country, feature and name, and pages with a cursor', async () => {
    const all = await list('/v1/institutions?limit=100');
    expect(sandboxIds(all.data)).toEqual(SANDBOX_IDS);
    const redirect = all.data.find((i) => i.id === 'sandbox-redirect');
    expect(redirect?.features).toContain('ACCOUNT_TRANSACTIONS');
    expect(redirect?.countries).toContain('GB');

    const transactions = await list('/v1/institutions?country=GB&feature=ACCOUNT_TRANSACTIONS&limit=100');
    expect(sandboxIds(transactions.data)).toEqual([
      'sandbox-embedded',
      'sandbox-flaky',
      'sandbox-psu-business',
      'sandbox-redirect',
    ]);
    expect(transactions.data.every((i) => i.features.includes('ACCOUNT_TRANSACTIONS'))).toBe(true);

    const payments = await list('/v1/institutions?feature=INITIATE_DOMESTIC_SINGLE_PAYMENT&limit=100');
    expect(sandboxIds(payments.data)).toContain('sandbox-payments');
    const named = await list(
      `/v1/institutions?q=${encodeURIComponent(redirect?.name.slice(0, 4).toUpperCase() ?? '')}`,
    );
    expect(named.data.map((i) => i.id)).toContain('sandbox-redirect');
    expect((await list('/v1/institutions?country=ZZ')).data).toEqual([]);

    const seen: string[] = [];
    let next: string | undefined = '/v1/institutions?limit=1&country=GB';
    while (next) {
      const page = await list(next);
      expect(page.data.length).toBeLessThanOrEqual(1);
      seen.push(...page.data.map((i) => i.id));
      next = page.links?.next;
      if (next) expect(next).toContain('country=GB');
    }
    expect(seen).toEqual((await list('/v1/institutions?country=GB&limit=100')).data.map((i) => i.id));
  });

  it('serves one institution, 404 for an unknown one; sessions may read too', async () => {
    const response = await stack.anonymous.as(key).get('/v1/institutions/sandbox-payments');
    expect(response.status).toBe(200);
    const { data } = response.body as Envelope<InstitutionBody>;
    expect(data).toMatchObject({ id: 'sandbox-payments' });
    expect(data.features.length).toBeGreaterThan(0);

    const unknown = await stack.anonymous.as(key).get('/v1/institutions/no-such-bank');
    expect(unknown.status).toBe(404);
    expect((unknown.body as ErrorBody).error.code).toBe('NOT_FOUND');

    const { merchant } = await createMerchant(api);
    const user = await createUser(api.app.get(UserRepository), merchant.id);
    const token = sessionToken(api.config, { merchantId: merchant.id, userId: user.id });
    expect((await stack.anonymous.as(token).get('/v1/institutions/sandbox-redirect')).status).toBe(200);
    expect((await list('/v1/institutions?country=GB', token)).data.length).toBeGreaterThan(0);
    expect((await stack.anonymous.as(admin).get('/v1/institutions')).status).toBe(403);
    expect((await stack.anonymous.get('/v1/institutions')).status).toBe(401);
  });

  it('says how each bank can be connected, and refuses a flow a bank does not offer with its own code', async () => {
    const flows = new Map(
      ((await list('/v1/institutions?limit=100')).data as (InstitutionBody & { flows: string[] })[]).map(
        (i) => [i.id, i.flows],
      ),
    );
    expect(SANDBOX_IDS.map((id) => [id, flows.get(id)])).toEqual([
      ['sandbox-embedded', ['EMBEDDED']],
      ['sandbox-flaky', ['REDIRECT']],
      ['sandbox-payments', []],
      ['sandbox-psu-business', ['REDIRECT']],
      ['sandbox-redirect', ['REDIRECT']],
    ]);
    // Asking a bank for a flow it lacks is not an authentication matter: 422 FEATURE_UNSUPPORTED.
    const { merchant, apiKey } = await createMerchant(api);
    const user = await createUser(api.app.get(UserRepository), merchant.id);
    for (const institutionId of ['sandbox-embedded', 'sandbox-payments']) {
      const refused = await stack.anonymous.as(apiKey.key).post(`/v1/users/${user.id}/consents`, {
        institutionId,
        redirectUrl: 'https://app.merchant.example/banks/done',
      });
      expect(refused.status, institutionId).toBe(422);
      expect(refused.body.error).toMatchObject({
        code: 'FEATURE_UNSUPPORTED',
        details: [{ field: 'institutionId', issue: 'does not offer this flow or feature' }],
      });
    }
  });

  it('refuses malformed queries with 400 VALIDATION_FAILED', async () => {
    for (const query of [
      'country=gb',
      'country=GBR',
      'feature=not a feature',
      'q=',
      `q=${'x'.repeat(101)}`,
      'limit=0',
      'limit=101',
      'limit=ten',
      'cursor=%%%',
      `cursor=${Buffer.from('\u0001').toString('base64url')}`,
      'unknown=1',
    ]) {
      const response = await stack.anonymous.as(key).get(`/v1/institutions?${query}`);
      expect(response.status, query).toBe(400);
      expect((response.body as ErrorBody).error.code).toBe('VALIDATION_FAILED');
    }
  });
});
