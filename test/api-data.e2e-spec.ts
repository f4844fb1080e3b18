import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '#libs/crypto';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import {
  authorisedSandboxVrpConsent,
  caller,
  captureLogger,
  connectBank,
  type CreatedMerchant,
  createMerchant,
  createSandboxHostedVrpRequest,
  createSandboxSubApplication,
  createUser,
  createVrpConsentRow,
  SandboxHttp,
  sessionToken,
  type Stack,
  startStack,
} from './kit/index.js';
type ErrorBody = {
  error: {
    code: string;
    status: number;
    message: string;
    details?: { field: string; issue: string }[];
    upstream?: { status: number; tracingId?: string };
  };
};
type ListBody<T> = {
  data: T[];
  meta: { count: number; nextCursor: string | null };
  links?: { next?: string };
};

const DECIMAL = /^-?\d+\.\d{2,4}$/;

/** Every `amount` anywhere in a record: money must never leave as a JSON number. */
function amountsIn(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(amountsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (k === 'amount' ? [v] : amountsIn(v)));
}

describe('api: financial data and VRP through to the upstream', () => {
  let stack: Stack;
  let sandbox: Stack['sandbox'];
  let admin: SandboxHttp;
  let api: Stack['api'];
  let prisma: PrismaService;
  let owner: CreatedMerchant;
  let other: CreatedMerchant;
  let subApplication: string;
  let userId: string;
  let otherUserId: string;
  let consentId: string;
  let current: { id: string; upstreamAccountId: string };
  let savings: { id: string; upstreamAccountId: string };
  let vrpConsentId: string;
  let hostedRequestId: string;
  const logs = captureLogger('api');
  const secrets: string[] = [];

  const call = caller(() => api.url);
  const json = async <T>(response: Response) => (await response.json()) as T;
  const fault = async (rule: Record<string, unknown>) =>
    expect((await admin.admin('POST', '/faults', rule)).status).toBe(201);

  beforeAll(async () => {
    stack = await startStack({ overrides: { LOG_LEVEL: 'trace' }, loggers: { api: logs.logger } });
    ({ sandbox, api } = stack);
    admin = new SandboxHttp(sandbox.url, api.config);
    prisma = api.app.get(PrismaService);
    // The owner acts as its own sub-application, so the upstream scopes its hosted VRP requests to it.
    subApplication = await createSandboxSubApplication(sandbox.url, api.config);
    owner = await createMerchant(api, { subApplicationId: subApplication });
    other = await createMerchant(api);
    const users = api.app.get(UserRepository);
    const user = await createUser(users, owner.merchant.id);
    userId = user.id;
    otherUserId = (await createUser(users, owner.merchant.id)).id;

    consentId = await connectBank({ apiUrl: api.url, sandboxUrl: sandbox.url }, owner.apiKey.key, userId);
    const row = await prisma.consent.findUniqueOrThrow({ where: { id: consentId } });
    secrets.push(
      new SecretBox(api.config.crypto.encryptionKeys).open(
        { keyId: row.tokenKeyId!, ciphertext: row.tokenCiphertext! },
        row.id,
      ),
    );
    const accounts = await prisma.account.findMany({ where: { consentId } });
    current = accounts.find((a) => a.type === 'CURRENT')!;
    savings = accounts.find((a) => a.type === 'SAVINGS')!;

    const vrp = await authorisedSandboxVrpConsent(
      sandbox.url,
      api.config,
      user.applicationUserId,
      subApplication,
    );
    secrets.push(vrp.consentToken);
    vrpConsentId = (await createVrpConsentRow(prisma, api.config, user, vrp)).id;
    hostedRequestId = await createSandboxHostedVrpRequest(sandbox.url, api.config, subApplication);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('reads statements and beneficiaries through to the bank, by key and by the user’s session', async () => {
    const session = sessionToken(api.config, { merchantId: owner.merchant.id, userId });
    for (const token of [owner.apiKey.key, session]) {
      const statements = await call('GET', `/v1/accounts/${current.id}/statements?limit=5&sort=date`, token);
      expect(statements.status).toBe(200);
      const body = await json<ListBody<{ id: string }>>(statements);
      expect(body.meta.count).toBe(body.data.length);
      expect(body.data.length).toBeGreaterThan(0);
      expect(body.data.length).toBeLessThanOrEqual(5);

      const beneficiaries = await call('GET', `/v1/accounts/${current.id}/beneficiaries`, token);
      expect(beneficiaries.status).toBe(200);
      const listed = await json<ListBody<{ id: string }>>(beneficiaries);
      expect(listed.meta.count).toBe(listed.data.length);
      expect(JSON.stringify(listed)).not.toMatch(/"amount":\s*-?\d/);
    }
  });

  it('walks every live transaction page through our signed cursor, amounts as decimal strings', async () => {
    const counts = await admin.admin<{ data: { id: string; transactionCount: number }[] }>(
      'GET',
      `/consents/${(await prisma.consent.findUniqueOrThrow({ where: { id: consentId } })).upstreamConsentId}/accounts`,
    );
    const expected = counts.body.data.find((a) => a.id === savings.upstreamAccountId)!.transactionCount;
    expect(expected).toBeGreaterThan(250);

    const ids = new Set<string>();
    let path: string | undefined = `/v1/accounts/${savings.id}/transactions/live`;
    let pages = 0;
    while (path) {
      const response = await call('GET', path, owner.apiKey.key);
      expect(response.status).toBe(200);
      const page =
        await json<ListBody<{ id: string; amount: unknown; transactionAmount?: { amount: unknown } }>>(
          response,
        );
      expect(page.meta.count).toBe(page.data.length);
      for (const t of page.data) {
        ids.add(t.id);
        const amounts = amountsIn(t);
        expect(amounts.length).toBeGreaterThan(0);
        for (const a of amounts) expect(a).toMatch(DECIMAL);
      }
      if (page.meta.nextCursor) {
        expect(page.links?.next).toBe(
          `/v1/accounts/${savings.id}/transactions/live?cursor=${encodeURIComponent(page.meta.nextCursor)}`,
        );
      } else expect(page.links).toBeUndefined();
      path = page.links?.next;
      pages += 1;
    }
    expect(pages).toBeGreaterThan(1);
    expect(ids.size).toBe(expected);
  });

  it('refuses a cursor that was tampered with, forged, or issued for another account', async () => {
    const first = await json<ListBody<unknown>>(
      await call('GET', `/v1/accounts/${savings.id}/transactions/live`, owner.apiKey.key),
    );
    const cursor = first.meta.nextCursor!;
    const [body, mac] = cursor.split('.') as [string, string];
    const flipped = `${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`;
    const bad = [`${body}.${flipped}`, 'garbage', `${Buffer.from('{"v":1}').toString('base64url')}.${mac}`];
    for (const c of bad) {
      const response = await call(
        'GET',
        `/v1/accounts/${savings.id}/transactions/live?cursor=${encodeURIComponent(c)}`,
        owner.apiKey.key,
      );
      expect(response.status).toBe(400);
      expect((await json<ErrorBody>(response)).error.details?.[0]?.field).toBe('cursor');
    }
    const elsewhere = await call(
      'GET',
      `/v1/accounts/${current.id}/transactions/live?cursor=${encodeURIComponent(cursor)}`,
      owner.apiKey.key,
    );
    expect(elsewhere.status).toBe(400);
    const mixed = await call(
      'GET',
      `/v1/accounts/${savings.id}/transactions/live?from=2024-01-01&cursor=${encodeURIComponent(cursor)}`,
      owner.apiKey.key,
    );
    expect(mixed.status).toBe(400);
  });

  it('categorises transactions synchronously (Data Plus)', async () => {
    const response = await call(
      'POST',
      `/v1/accounts/${savings.id}/transactions/categorisation`,
      owner.apiKey.key,
      {
        categorisationType: 'consumer',
      },
    );
    expect(response.status).toBe(201);
    const body = await json<{
      data: { categorisationId: string; transactions: { amount: unknown }[] };
      meta: { count: number };
    }>(response);
    expect(body.data.categorisationId).toBeTruthy();
    expect(body.meta.count).toBe(body.data.transactions.length);
    for (const a of amountsIn(body.data.transactions)) expect(a).toMatch(DECIMAL);
  });

  it('shows the sweeping VRP consent with its limits and 0 paid this period', async () => {
    const response = await call('GET', `/v1/vrp/consents/${vrpConsentId}`, owner.apiKey.key);
    expect(response.status).toBe(200);
    const { data } = await json<{
      data: {
        id: string;
        status: string;
        controlParameters: {
          maxAmountPerPayment: { amount: string; currency: string };
          periodicLimits: {
            frequency: string;
            totalMaxAmount: { amount: string };
            currentPeriod: { start: string; end: string };
            paidInCurrentPeriod: { amount: string; currency: string };
          }[];
        };
      };
    }>(response);
    expect(data.id).toBe(vrpConsentId);
    expect(data.status).toBe('AUTHORIZED');
    expect(data.controlParameters.maxAmountPerPayment).toEqual({ amount: '10000.00', currency: 'GBP' });
    const [limit] = data.controlParameters.periodicLimits;
    expect(limit).toMatchObject({
      frequency: 'MONTHLY',
      totalMaxAmount: { amount: '20000.50' },
      paidInCurrentPeriod: { amount: '0.00', currency: 'GBP' },
    });
    expect(Date.parse(limit.currentPeriod.start)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(limit.currentPeriod.end)).toBeGreaterThan(Date.now());
  });

  it('confirms funds: true up to 5,000.00, false above; the amount goes in and out as a decimal string', async () => {
    const path = `/v1/vrp/consents/${vrpConsentId}/funds-confirmation`;
    const yes = await call('POST', path, owner.apiKey.key, {
      reference: 'Top-up',
      amount: { amount: '5000.00', currency: 'GBP' },
    });
    expect(yes.status).toBe(200);
    const ok = await json<{ data: { fundsAvailable: boolean; amount: { amount: string } } }>(yes);
    expect(ok.data).toMatchObject({ fundsAvailable: true, amount: { amount: '5000.00' } });

    const session = sessionToken(api.config, { merchantId: owner.merchant.id, userId });
    const no = await call('POST', path, session, { amount: { amount: '5000.01', currency: 'GBP' } });
    expect(no.status).toBe(200);
    expect((await json<{ data: { fundsAvailable: boolean } }>(no)).data.fundsAvailable).toBe(false);
  });

  it('shows a hosted VRP request to its merchant only, without any consent token', async () => {
    const response = await call('GET', `/v1/hosted/vrp-requests/${hostedRequestId}`, owner.apiKey.key);
    expect(response.status).toBe(200);
    const { data } = await json<{ data: { requestId: string; status: { currentStatus: string } } }>(response);
    expect(data.requestId).toBe(hostedRequestId);
    expect(data.status.currentStatus).toBe('created');
    expect(JSON.stringify(data)).not.toContain('consentToken');

    const elsewhere = await call('GET', `/v1/hosted/vrp-requests/${hostedRequestId}`, other.apiKey.key);
    expect(elsewhere.status).toBe(404);
    const session = sessionToken(api.config, { merchantId: owner.merchant.id, userId });
    expect((await call('GET', `/v1/hosted/vrp-requests/${hostedRequestId}`, session)).status).toBe(403);
  });

  it('answers 404 to a merchant without a sub-application, even for a request on the root application', async () => {
    // Merchants without a sub-application share the root application: none can prove it owns a request.
    const rootRequestId = await createSandboxHostedVrpRequest(sandbox.url, api.config);
    for (const id of [rootRequestId, hostedRequestId]) {
      const response = await call('GET', `/v1/hosted/vrp-requests/${id}`, other.apiKey.key);
      expect(response.status, id).toBe(404);
      expect((await json<ErrorBody>(response)).error.code).toBe('NOT_FOUND');
    }
    // The sub-application owner still reads its own request, and not the root one.
    expect((await call('GET', `/v1/hosted/vrp-requests/${hostedRequestId}`, owner.apiKey.key)).status).toBe(
      200,
    );
    expect((await call('GET', `/v1/hosted/vrp-requests/${rootRequestId}`, owner.apiKey.key)).status).toBe(
      404,
    );
  });

  it('answers 404 on every route to another merchant and to another user’s session', async () => {
    const otherSession = sessionToken(api.config, { merchantId: owner.merchant.id, userId: otherUserId });
    const routes: [string, string, unknown?][] = [
      ['GET', `/v1/accounts/${current.id}/statements`],
      ['GET', `/v1/accounts/${current.id}/beneficiaries`],
      ['GET', `/v1/accounts/${current.id}/transactions/live`],
      ['POST', `/v1/accounts/${current.id}/transactions/categorisation`, { categorisationType: 'consumer' }],
      ['GET', `/v1/vrp/consents/${vrpConsentId}`],
      [
        'POST',
        `/v1/vrp/consents/${vrpConsentId}/funds-confirmation`,
        { amount: { amount: '1.00', currency: 'GBP' } },
      ],
      ['GET', `/v1/accounts/00000000-0000-7000-8000-000000000000/statements`],
      ['GET', `/v1/vrp/consents/not-a-uuid`],
    ];
    for (const token of [other.apiKey.key, otherSession]) {
      for (const [method, path, body] of routes) {
        const response = await call(method, path, token, body);
        expect(response.status, `${method} ${path}`).toBe(404);
        expect((await json<ErrorBody>(response)).error.code).toBe('NOT_FOUND');
      }
    }
    // A data consent is not a VRP consent, whoever asks.
    expect((await call('GET', `/v1/vrp/consents/${consentId}`, owner.apiKey.key)).status).toBe(404);
  });

  it('answers 400 in the envelope for malformed and invalid input, never 500', async () => {
    const cases: [string, string, unknown?][] = [
      ['GET', `/v1/accounts/${current.id}/statements?limit=0`],
      ['GET', `/v1/accounts/${current.id}/statements?limit=1001`],
      ['GET', `/v1/accounts/${current.id}/statements?limit=ten`],
      ['GET', `/v1/accounts/${current.id}/statements?sort=amount`],
      ['GET', `/v1/accounts/${current.id}/statements?from=yesterday`],
      ['GET', `/v1/accounts/${current.id}/statements?unknown=1`],
      ['GET', `/v1/accounts/${current.id}/transactions/live?cursor=`],
      ['POST', `/v1/accounts/${current.id}/transactions/categorisation`, '{"categorisationType":'],
      ['POST', `/v1/accounts/${current.id}/transactions/categorisation`, { categorisationType: 7 }],
      [
        'POST',
        `/v1/accounts/${current.id}/transactions/categorisation`,
        { categorisationType: 'consumer', x: 1 },
      ],
      [
        'POST',
        `/v1/vrp/consents/${vrpConsentId}/funds-confirmation`,
        { amount: { amount: 12.34, currency: 'GBP' } },
      ],
      [
        'POST',
        `/v1/vrp/consents/${vrpConsentId}/funds-confirmation`,
        { amount: { amount: '1.234', currency: 'GBP' } },
      ],
      [
        'POST',
        `/v1/vrp/consents/${vrpConsentId}/funds-confirmation`,
        { amount: { amount: '0.00', currency: 'GBP' } },
      ],
      [
        'POST',
        `/v1/vrp/consents/${vrpConsentId}/funds-confirmation`,
        { amount: { amount: '1', currency: 'gbp' } },
      ],
      ['POST', `/v1/vrp/consents/${vrpConsentId}/funds-confirmation`, { amount: '1.00' }],
      [
        'POST',
        `/v1/vrp/consents/${vrpConsentId}/funds-confirmation`,
        { amount: { amount: '1', currency: 'GBP', x: 1 } },
      ],
      ['POST', `/v1/vrp/consents/${vrpConsentId}/funds-confirmation`, {}],
    ];
    for (const [method, path, body] of cases) {
      const response = await call(method, path, owner.apiKey.key, body);
      expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      const error = (await json<ErrorBody>(response)).error;
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.status).toBe(400);
    }
  });

  it('answers 424 INSTITUTION_ERROR with the bank’s message and the upstream tracingId', async () => {
    // One more than the client's attempts (1 + 3 retries), so the fault outlasts the retries.
    await fault({ path: '/accounts/**', status: 424, count: 4 });
    const response = await call('GET', `/v1/accounts/${current.id}/beneficiaries`, owner.apiKey.key);
    expect(response.status).toBe(424);
    const { error } = await json<ErrorBody>(response);
    expect(error.code).toBe('INSTITUTION_ERROR');
    expect(error.message).toContain('Injected fault');
    expect(error.upstream?.status).toBe(424);
    expect(error.upstream?.tracingId).toBeTruthy();
    // A success closes the breaker's count again before the next fault test.
    expect((await call('GET', `/v1/accounts/${current.id}/beneficiaries`, owner.apiKey.key)).status).toBe(
      200,
    );
  });

  it('answers 503 UPSTREAM_UNAVAILABLE when 500s outlast the retries', async () => {
    await fault({ path: '/accounts/**', status: 500, count: 4 });
    const response = await call('GET', `/v1/accounts/${current.id}/statements`, owner.apiKey.key);
    expect(response.status).toBe(503);
    const { error } = await json<ErrorBody>(response);
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.upstream?.status).toBe(500);
    expect((await call('GET', `/v1/accounts/${current.id}/statements`, owner.apiKey.key)).status).toBe(200);
  });

  it('answers 503 UPSTREAM_UNAVAILABLE with error.upstream when the bank outlasts the upstream timeout', async () => {
    // A second api on the same database, with a timeout short enough for the sandbox's injected latency.
    const impatient = await stack.startApi({ UPSTREAM_TIMEOUT_MS: '300' });
    try {
      await fault({ path: '/accounts/**', latencyMs: 1500, count: 8 });
      const response = await caller(() => impatient.url)(
        'GET',
        `/v1/accounts/${current.id}/statements`,
        owner.apiKey.key,
      );
      expect(response.status).toBe(503);
      const { error } = await json<ErrorBody>(response);
      expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(error.upstream).toBeDefined();
    } finally {
      expect((await admin.admin('DELETE', '/faults')).status).toBeLessThan(300);
      await impatient.close();
    }
    expect((await call('GET', `/v1/accounts/${current.id}/statements`, owner.apiKey.key)).status).toBe(200);
  });

  it('marks a consent the bank expired, answers 409 CONSENT_EXPIRED, then refuses without calling the bank', async () => {
    const row = await prisma.consent.findUniqueOrThrow({ where: { id: consentId } });
    expect((await admin.admin('POST', `/consents/${row.upstreamConsentId}/expire`)).status).toBe(200);

    const response = await call('GET', `/v1/accounts/${current.id}/statements`, owner.apiKey.key);
    expect(response.status).toBe(409);
    expect((await json<ErrorBody>(response)).error.code).toBe('CONSENT_EXPIRED');
    const marked = await prisma.consent.findUniqueOrThrow({ where: { id: consentId } });
    expect(marked).toMatchObject({ status: 'EXPIRED', lastErrorCode: 'CONSENT_EXPIRED' });

    // Now refused locally: a fault on every upstream path would count any request that reached the bank.
    expect((await admin.admin('DELETE', '/faults')).status).toBe(204);
    await fault({ path: '/**', status: 500 });
    const again = await call('GET', `/v1/accounts/${current.id}/beneficiaries`, owner.apiKey.key);
    expect(again.status).toBe(409);
    expect((await json<ErrorBody>(again)).error.code).toBe('CONSENT_NOT_AUTHORISED');
    const faults = await admin.admin<{ data: { matched: number }[] }>('GET', '/faults');
    expect(faults.body.data.map((f) => f.matched)).toEqual([0]);
    await admin.admin('DELETE', '/faults');
  });

  it('never writes a consent token to the logs', () => {
    const text = logs.text();
    expect(text.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
