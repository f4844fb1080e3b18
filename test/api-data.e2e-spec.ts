import { beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '#libs/crypto';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import {
  ApiClient,
  authorisedSandboxVrpConsent,
  captureLogger,
  connectBank,
  type CreatedMerchant,
  createMerchant,
  createSandboxHostedVrpRequest,
  createSandboxSubApplication,
  createUser,
  createVrpConsentRow,
  type Envelope,
  type ErrorBody,
  SandboxHttp,
  sessionToken,
  type Stack,
  useStack,
} from './kit/index.js';

const DECIMAL = /^-?\d+\.\d{2,4}$/;

/** Every `amount` anywhere in a record: money must never leave as a JSON number. */
function amountsIn(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(amountsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (k === 'amount' ? [v] : amountsIn(v)));
}

describe('api: financial data and VRP through to the upstream', () => {
  const logs = captureLogger('api');
  const stack = useStack({ overrides: { LOG_LEVEL: 'trace' }, loggers: { api: logs.logger } });
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
  const secrets: string[] = [];

  const fault = async (rule: Record<string, unknown>) =>
    expect((await admin.admin('POST', '/faults', rule)).status).toBe(201);

  beforeAll(async () => {
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

  it('reads statements and beneficiaries through to the bank, by key and by the user’s session', async () => {
    const session = sessionToken(api.config, { merchantId: owner.merchant.id, userId });
    for (const token of [owner.apiKey.key, session]) {
      const statements = await stack.anonymous
        .as(token)
        .get(`/v1/accounts/${current.id}/statements?limit=5&sort=date`);
      expect(statements.status).toBe(200);
      const body = statements.body as Envelope<{ id: string }[]>;
      expect(body.meta.count).toBe(body.data.length);
      expect(body.data.length).toBeGreaterThan(0);
      expect(body.data.length).toBeLessThanOrEqual(5);

      const beneficiaries = await stack.anonymous.as(token).get(`/v1/accounts/${current.id}/beneficiaries`);
      expect(beneficiaries.status).toBe(200);
      const listed = beneficiaries.body as Envelope<{ id: string }[]>;
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
      const response = await stack.anonymous.as(owner.apiKey.key).get(path);
      expect(response.status).toBe(200);
      const page = response.body as Envelope<
        { id: string; amount: unknown; transactionAmount?: { amount: unknown } }[]
      >;
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
    const first = (
      await stack.anonymous.as(owner.apiKey.key).get(`/v1/accounts/${savings.id}/transactions/live`)
    ).body as Envelope<unknown[]>;
    const cursor = first.meta.nextCursor!;
    const [body, mac] = cursor.split('.') as [string, string];
    const flipped = `${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`;
    const bad = [`${body}.${flipped}`, 'garbage', `${Buffer.from('{"v":1}').toString('base64url')}.${mac}`];
    for (const c of bad) {
      const response = await stack.anonymous
        .as(owner.apiKey.key)
        .get(`/v1/accounts/${savings.id}/transactions/live?cursor=${encodeURIComponent(c)}`);
      expect(response.status).toBe(400);
      expect((response.body as ErrorBody).error.details?.[0]?.field).toBe('cursor');
    }
    const elsewhere = await stack.anonymous
      .as(owner.apiKey.key)
      .get(`/v1/accounts/${current.id}/transactions/live?cursor=${encodeURIComponent(cursor)}`);
    expect(elsewhere.status).toBe(400);
    const mixed = await stack.anonymous
      .as(owner.apiKey.key)
      .get(
        `/v1/accounts/${savings.id}/transactions/live?from=2024-01-01&cursor=${encodeURIComponent(cursor)}`,
      );
    expect(mixed.status).toBe(400);
  });

  it('categorises transactions synchronously (Data Plus)', async () => {
    const response = await stack.anonymous
      .as(owner.apiKey.key)
      .post(`/v1/accounts/${savings.id}/transactions/categorisation`, {
        categorisationType: 'consumer',
      });
    expect(response.status).toBe(201);
    const body = response.body as {
      data: { categorisationId: string; transactions: { amount: unknown }[] };
      meta: { count: number };
    };
    expect(body.data.categorisationId).toBeTruthy();
    expect(body.meta.count).toBe(body.data.transactions.length);
    for (const a of amountsIn(body.data.transactions)) expect(a).toMatch(DECIMAL);
  });

  it('shows the sweeping VRP consent with its limits and 0 paid this period', async () => {
    const response = await stack.anonymous.as(owner.apiKey.key).get(`/v1/vrp/consents/${vrpConsentId}`);
    expect(response.status).toBe(200);
    const { data } = response.body as {
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
    };
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
    const yes = await stack.anonymous.as(owner.apiKey.key).post(path, {
      reference: 'Top-up',
      amount: { amount: '5000.00', currency: 'GBP' },
    });
    expect(yes.status).toBe(200);
    const ok = yes.body as { data: { fundsAvailable: boolean; amount: { amount: string } } };
    expect(ok.data).toMatchObject({ fundsAvailable: true, amount: { amount: '5000.00' } });

    const session = sessionToken(api.config, { merchantId: owner.merchant.id, userId });
    const no = await stack.anonymous
      .as(session)
      .post(path, { amount: { amount: '5000.01', currency: 'GBP' } });
    expect(no.status).toBe(200);
    expect((no.body as { data: { fundsAvailable: boolean } }).data.fundsAvailable).toBe(false);
  });

  it('shows a hosted VRP request to its merchant only, without any consent token', async () => {
    const response = await stack.anonymous
      .as(owner.apiKey.key)
      .get(`/v1/hosted/vrp-requests/${hostedRequestId}`);
    expect(response.status).toBe(200);
    const { data } = response.body as { data: { requestId: string; status: { currentStatus: string } } };
    expect(data.requestId).toBe(hostedRequestId);
    expect(data.status.currentStatus).toBe('created');
    expect(JSON.stringify(data)).not.toContain('consentToken');

    const elsewhere = await stack.anonymous
      .as(other.apiKey.key)
      .get(`/v1/hosted/vrp-requests/${hostedRequestId}`);
    expect(elsewhere.status).toBe(404);
    const session = sessionToken(api.config, { merchantId: owner.merchant.id, userId });
    expect((await stack.anonymous.as(session).get(`/v1/hosted/vrp-requests/${hostedRequestId}`)).status).toBe(
      403,
    );
  });

  it('answers 404 to a merchant without a sub-application, even for a request on the root application', async () => {
    // Merchants without a sub-application share the root application: none can prove it owns a request.
    const rootRequestId = await createSandboxHostedVrpRequest(sandbox.url, api.config);
    for (const id of [rootRequestId, hostedRequestId]) {
      const response = await stack.anonymous.as(other.apiKey.key).get(`/v1/hosted/vrp-requests/${id}`);
      expect(response.status, id).toBe(404);
      expect((response.body as ErrorBody).error.code).toBe('NOT_FOUND');
    }
    // The sub-application owner still reads its own request, and not the root one.
    expect(
      (await stack.anonymous.as(owner.apiKey.key).get(`/v1/hosted/vrp-requests/${hostedRequestId}`)).status,
    ).toBe(200);
    expect(
      (await stack.anonymous.as(owner.apiKey.key).get(`/v1/hosted/vrp-requests/${rootRequestId}`)).status,
    ).toBe(404);
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
        const response = await stack.anonymous.as(token).call(method, path, { body });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect((response.body as ErrorBody).error.code).toBe('NOT_FOUND');
      }
    }
    // A data consent is not a VRP consent, whoever asks.
    expect((await stack.anonymous.as(owner.apiKey.key).get(`/v1/vrp/consents/${consentId}`)).status).toBe(
      404,
    );
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
      const response = await stack.anonymous.as(owner.apiKey.key).call(method, path, { body });
      expect(response.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
      const error = (response.body as ErrorBody).error;
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.status).toBe(400);
    }
  });

  it('answers 424 INSTITUTION_ERROR with the bank’s message and the upstream tracingId', async () => {
    // One more than the client's attempts (1 + 3 retries), so the fault outlasts the retries.
    await fault({ path: '/accounts/**', status: 424, count: 4 });
    const response = await stack.anonymous
      .as(owner.apiKey.key)
      .get(`/v1/accounts/${current.id}/beneficiaries`);
    expect(response.status).toBe(424);
    const { error } = response.body as ErrorBody;
    expect(error.code).toBe('INSTITUTION_ERROR');
    expect(error.message).toContain('Injected fault');
    expect(error.upstream?.status).toBe(424);
    expect(error.upstream?.tracingId).toBeTruthy();
    // A success closes the breaker's count again before the next fault test.
    expect(
      (await stack.anonymous.as(owner.apiKey.key).get(`/v1/accounts/${current.id}/beneficiaries`)).status,
    ).toBe(200);
  });

  it('answers 503 UPSTREAM_UNAVAILABLE when 500s outlast the retries', async () => {
    await fault({ path: '/accounts/**', status: 500, count: 4 });
    const response = await stack.anonymous.as(owner.apiKey.key).get(`/v1/accounts/${current.id}/statements`);
    expect(response.status).toBe(503);
    const { error } = response.body as ErrorBody;
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.upstream?.status).toBe(500);
    // The bank said nothing of when: the caller is told all the same.
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(
      (await stack.anonymous.as(owner.apiKey.key).get(`/v1/accounts/${current.id}/statements`)).status,
    ).toBe(200);
  });

  it('answers 503 UPSTREAM_UNAVAILABLE with error.upstream when the bank outlasts the upstream timeout', async () => {
    // A second api on the same database, with a timeout short enough for the sandbox's injected latency.
    const impatient = await stack.startApi({ UPSTREAM_TIMEOUT_MS: '300' });
    try {
      await fault({ path: '/accounts/**', latencyMs: 1500, count: 8 });
      const response = await new ApiClient(impatient.url, owner.apiKey.key).get(
        `/v1/accounts/${current.id}/statements`,
      );
      expect(response.status).toBe(503);
      const { error } = response.body as ErrorBody;
      expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(error.upstream).toBeDefined();
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      expect((await admin.admin('DELETE', '/faults')).status).toBeLessThan(300);
      await impatient.close();
    }
    expect(
      (await stack.anonymous.as(owner.apiKey.key).get(`/v1/accounts/${current.id}/statements`)).status,
    ).toBe(200);
  });

  it('marks a consent the bank expired, answers 409 CONSENT_EXPIRED, then refuses without calling the bank', async () => {
    const row = await prisma.consent.findUniqueOrThrow({ where: { id: consentId } });
    expect((await admin.admin('POST', `/consents/${row.upstreamConsentId}/expire`)).status).toBe(200);

    const response = await stack.anonymous.as(owner.apiKey.key).get(`/v1/accounts/${current.id}/statements`);
    expect(response.status).toBe(409);
    expect((response.body as ErrorBody).error.code).toBe('CONSENT_EXPIRED');
    const marked = await prisma.consent.findUniqueOrThrow({ where: { id: consentId } });
    expect(marked).toMatchObject({ status: 'EXPIRED', lastErrorCode: 'CONSENT_EXPIRED' });

    // Now refused locally: a fault on every upstream path would count any request that reached the bank.
    expect((await admin.admin('DELETE', '/faults')).status).toBe(204);
    await fault({ path: '/**', status: 500 });
    const again = await stack.anonymous.as(owner.apiKey.key).get(`/v1/accounts/${current.id}/beneficiaries`);
    expect(again.status).toBe(409);
    expect((again.body as ErrorBody).error.code).toBe('CONSENT_NOT_AUTHORISED');
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
