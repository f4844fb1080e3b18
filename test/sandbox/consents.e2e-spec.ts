import { describe, expect, it } from 'vitest';
import { SEEDED_SUB_APPLICATIONS } from '../../apps/sandbox/src/core/index.js';
import { testConfig } from '../kit/index.js';
import { useSandbox } from '../kit/sandbox-fixture.js';

const SUB_A = SEEDED_SUB_APPLICATIONS[0];
const SUB_B = SEEDED_SUB_APPLICATIONS[1];
const CALLBACK = 'https://merchant.example/callback';
const DAY_MS = 86_400_000;
/**
 * Consent details a strict upstream requires (spec 2.5): scopes and an expiry. A year ahead is capped at
 * 90 days from the sandbox's now, and stays in the future however far a test moves its clock.
 */
const DETAILS = {
  featureScope: ['ACCOUNTS', 'ACCOUNT_BALANCES', 'ACCOUNT_TRANSACTIONS'],
  // Within the 90 days a data consent may last (a longer one is refused).
  expiresAt: new Date(Date.now() + 89 * DAY_MS).toISOString(),
};
const details = (change: Record<string, unknown> = {}) => ({ accountRequest: { ...DETAILS, ...change } });

describe('sandbox: users, applications, institutions and consent flows', () => {
  const { sandbox, http } = useSandbox();

  // ---- helpers acting as the merchant's server and the PSU's browser

  async function requestConsent(
    body: Record<string, unknown> = {},
    options: { subApplication?: string } = {},
  ) {
    const response = await http.call('POST', '/account-auth-requests', {
      body: { institutionId: 'sandbox-redirect', applicationUserId: 'alice', ...details(), ...body },
      ...options,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data;
  }

  /** GETs the hosted page the authorisationUrl points at, and reads its form as a browser would. */
  async function openBankPage(authorisationUrl: string) {
    const path = new URL(authorisationUrl).pathname;
    const response = await fetch(`${sandbox.url}${path}`);
    const html = await response.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    const decisions = [...html.matchAll(/<button type="submit" name="decision" value="([a-z]+)"/g)].map(
      (m) => m[1],
    );
    return {
      status: response.status,
      html,
      action,
      decisions,
      contentType: response.headers.get('content-type'),
    };
  }

  async function submit(action: string, decision: string) {
    const response = await fetch(`${sandbox.url}${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ decision }).toString(),
      redirect: 'manual',
    });
    return {
      status: response.status,
      location: response.headers.get('location'),
      html: await response.text(),
    };
  }

  async function approve(consent: { authorisationUrl: string }, decision = 'approve') {
    const page = await openBankPage(consent.authorisationUrl);
    expect(page.status).toBe(200);
    return submit(page.action!, decision);
  }

  /** An AUTHORIZED account consent (approved on the bank page, no callback) and its token. */
  async function authorisedConsent(
    body: Record<string, unknown> = {},
    options: { subApplication?: string } = {},
  ) {
    const consent = await requestConsent(body, options);
    expect((await approve(consent)).status).toBe(200);
    const read = await http.call('GET', `/consents/${consent.id}`, options);
    expect(read.body.data.status).toBe('AUTHORIZED');
    return read.body.data as { id: string; consentToken: string; userUuid: string; expiresAt: string };
  }

  // ---- authentication

  describe('authentication', () => {
    it('answers 401 CREDENTIALS_MISSING in the standard shape without credentials', async () => {
      const response = await http.call('GET', '/users', { auth: 'none' });
      expect(response.status).toBe(401);
      expect(response.body.error).toMatchObject({ code: 401, status: 'UNAUTHORIZED', source: 'YAPILY' });
      expect(response.body.error.issues[0]).toMatchObject({
        type: 'CREDENTIALS',
        code: 'CREDENTIALS_MISSING',
      });
    });

    it('answers 401 in the minimal shape for wrong credentials', async () => {
      const response = await http.call('GET', '/consents', { auth: { id: SUB_A.id, secret: 'wrong' } });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({
        error: { code: 401, status: 'UNAUTHORIZED', message: expect.any(String) },
      });
    });
  });

  // ---- users

  describe('users', () => {
    it('creates, lists, reads, patches and deletes users', async () => {
      const created = await http.call('POST', '/users', {
        body: { applicationUserId: 'u-1', referenceId: 'ref' },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        applicationUserId: 'u-1',
        referenceId: 'ref',
        applicationUuid: testConfig().upstream.applicationId,
        institutionConsents: [],
        vopOptOut: false,
      });
      const uuid = created.body.uuid as string;

      const duplicate = await http.call('POST', '/users', { body: { applicationUserId: 'u-1' } });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.error.issues[0].parameter).toBe('applicationUserId');

      await http.call('POST', '/users', { body: { applicationUserId: 'u-2' } });
      const all = await http.call('GET', '/users');
      expect(all.body.map((u: any) => u.applicationUserId)).toEqual(['u-1', 'u-2']);
      const filtered = await http.call('GET', '/users?filter[applicationUserId]=u-2');
      expect(filtered.body.map((u: any) => u.applicationUserId)).toEqual(['u-2']);

      expect((await http.call('GET', `/users/${uuid}`)).body.uuid).toBe(uuid);

      const patched = await http.call('PATCH', `/users/${uuid}`, {
        body: [
          { op: 'replace', path: '/referenceId', value: 'ref-2' },
          { op: 'replace', path: '/vopOptOut', value: 'true' },
          { op: 'add', path: '/applicationUserId', value: 'u-1b' },
        ],
        contentType: 'application/json-patch+json',
      });
      expect(patched.status).toBe(201);
      expect(patched.body).toMatchObject({
        uuid,
        referenceId: 'ref-2',
        vopOptOut: true,
        applicationUserId: 'u-1b',
      });

      const wrongType = await http.call('PATCH', `/users/${uuid}`, {
        body: [{ path: '/referenceId', value: 'x' }],
        contentType: 'application/json',
      });
      expect(wrongType.status).toBe(415);

      const unknownPath = await http.call('PATCH', `/users/${uuid}`, {
        body: [{ op: 'replace', path: '/uuid', value: 'x' }],
        contentType: 'application/json-patch+json',
      });
      expect(unknownPath.status).toBe(400);
      expect(unknownPath.body.error.issues[0].parameter).toBe('[0].path');

      const taken = await http.call('PATCH', `/users/${uuid}`, {
        body: [{ op: 'replace', path: '/applicationUserId', value: 'u-2' }],
        contentType: 'application/json-patch+json',
      });
      expect(taken.status).toBe(409);
    });

    it('shows institutionConsents and deletes a user with their consents', async () => {
      const consent = await authorisedConsent({ applicationUserId: 'bob' });
      const user = await http.call('GET', `/users/${consent.userUuid}`);
      expect(user.body.institutionConsents).toEqual([{ institutionId: 'sandbox-redirect' }]);

      const deleted = await http.call('DELETE', `/users/${consent.userUuid}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body.data).toMatchObject({
        id: consent.userUuid,
        deleteStatus: 'SUCCESS',
        userConsents: [{ id: consent.id, deleteStatus: 'SUCCESS', institutionId: 'sandbox-redirect' }],
      });
      expect((await http.call('GET', `/users/${consent.userUuid}`)).status).toBe(404);
      expect((await http.call('GET', `/consents/${consent.id}`)).status).toBe(404);
      // Its token no longer opens anything.
      const reuse = await http.call('PATCH', '/account-auth-requests', { consent: consent.consentToken });
      expect(reuse.status).toBe(401);
    });

    it("keeps applications apart: another application's user is not found", async () => {
      const created = await http.call('POST', '/users', { body: { applicationUserId: 'root-user' } });
      const asSub = await http.call('GET', `/users/${created.body.uuid}`, { subApplication: SUB_A.id });
      expect(asSub.status).toBe(404);
      expect((await http.call('GET', '/users', { subApplication: SUB_A.id })).body).toEqual([]);
      // The same applicationUserId is free in another application.
      const subUser = await http.call('POST', '/users', {
        body: { applicationUserId: 'root-user' },
        auth: { id: SUB_A.id, secret: SUB_A.secret },
      });
      expect(subUser.status).toBe(201);
      expect(subUser.body.applicationUuid).toBe(SUB_A.id);
    });
  });

  // ---- applications

  describe('applications', () => {
    it('lists the sub-applications of the root, pages and sorts them', async () => {
      const all = await http.call('GET', '/applications');
      expect(all.status).toBe(200);
      expect(all.body.data.map((a: any) => a.id)).toEqual([SUB_A.id, SUB_B.id]);
      expect(all.body.meta).toMatchObject({
        count: 2,
        pagination: { totalCount: 2, self: { offset: 0, limit: 1000 } },
      });
      expect(all.body.data[0]).not.toHaveProperty('secret');

      const page = await http.call('GET', '/applications?sort=-name&limit=1&offset=0');
      expect(page.body.data.map((a: any) => a.id)).toEqual([SUB_B.id]);
      expect(page.body.meta.pagination.totalCount).toBe(2);

      const bad = await http.call('GET', '/applications?limit=0');
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([{ fieldName: 'limit', error: 'INVALID_FORMAT' }]);
    });

    it('answers an empty list to sub-application credentials or header', async () => {
      const byCredentials = await http.call('GET', '/applications', {
        auth: { id: SUB_A.id, secret: SUB_A.secret },
      });
      expect(byCredentials.status).toBe(200);
      expect(byCredentials.body.data).toEqual([]);
      expect((await http.call('GET', '/applications', { subApplication: SUB_B.id })).body.data).toEqual([]);
    });

    it('reads the root and its sub-applications, and nothing else', async () => {
      const root = await http.call('GET', `/applications/${testConfig().upstream.applicationId}`);
      expect(root.body.data).toMatchObject({ id: testConfig().upstream.applicationId });
      const sub = await http.call('GET', `/applications/${SUB_A.id}`);
      expect(sub.body.data).toMatchObject({
        id: SUB_A.id,
        rootApplicationId: testConfig().upstream.applicationId,
      });
      const unknown = await http.call('GET', '/applications/00000000-0000-4000-8000-00000000ffff');
      expect(unknown.status).toBe(404);
      // A sub-application sees itself only.
      const sibling = await http.call('GET', `/applications/${SUB_B.id}`, {
        auth: { id: SUB_A.id, secret: SUB_A.secret },
      });
      expect(sibling.status).toBe(404);
    });

    it('creates a sub-application reachable with the root credentials and the sub-application header', async () => {
      const created = await http.call('POST', '/applications', {
        body: {
          name: 'Merchant Uno',
          merchantCategoryCode: '7995',
          ppcUserGroup: 'WHOLESALE_FI_FI',
          isContractPresent: true,
          callbackUrls: ['https://www.callback-service.com'],
        },
      });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({
        name: 'Merchant Uno',
        merchantCategoryCode: 7995,
        ppcUserGroup: 'WHOLESALE_FI_FI',
        isContractPresent: true,
        rootApplicationId: testConfig().upstream.applicationId,
      });
      expect(created.body.data).not.toHaveProperty('secret');
      const id = created.body.data.id as string;
      const user = await http.call('POST', '/users', {
        body: { applicationUserId: 'x' },
        subApplication: id,
      });
      expect(user.body.applicationUuid).toBe(id);

      const invalid = await http.call('POST', '/applications', { body: { merchantCategoryCode: 'abc' } });
      expect(invalid.status).toBe(400);
      expect(invalid.body.errors).toEqual(
        expect.arrayContaining([
          { fieldName: 'name', error: 'MANDATORY' },
          { fieldName: 'merchantCategoryCode', error: 'INVALID_FORMAT' },
          { fieldName: 'ppcUserGroup', error: 'MANDATORY' },
          { fieldName: 'isContractPresent', error: 'MANDATORY' },
        ]),
      );
      const bySub = await http.call('POST', '/applications', {
        auth: { id: SUB_A.id, secret: SUB_A.secret },
        body: { name: 'x', merchantCategoryCode: 5999, ppcUserGroup: 'COMMERCIAL', isContractPresent: true },
      });
      expect(bySub.status).toBe(403);
    });
  });

  // ---- institutions

  describe('institutions', () => {
    it('lists the fixtures and reads one', async () => {
      const list = await http.call('GET', '/institutions');
      expect(list.body.meta.count).toBe(5);
      expect(list.body.data.map((i: any) => i.id)).toEqual(
        expect.arrayContaining([
          'sandbox-redirect',
          'sandbox-embedded',
          'sandbox-payments',
          'sandbox-flaky',
          'sandbox-psu-business',
        ]),
      );
      expect(list.body.data[0]).not.toHaveProperty('flow');
      expect(list.body.data.find((i: any) => i.id === 'sandbox-psu-business')).not.toHaveProperty(
        'psuHeaders',
      );
      const one = await http.call('GET', '/institutions/sandbox-embedded');
      expect(one.body).toMatchObject({ id: 'sandbox-embedded', environmentType: 'SANDBOX' });
      expect(one.body.features).toContain('INITIATE_EMBEDDED_ACCOUNT_REQUEST');
      expect((await http.call('GET', '/institutions/nope')).status).toBe(404);
    });

    it('publishes which PSU headers an institution requires, and refuses its authorisations without them', async () => {
      const constraints = await http.call(
        'GET',
        '/institutions/constraints/data?institutionIds=sandbox-psu-business,sandbox-redirect&institutionCountryCode=GB&endpointPath=/account-auth-requests&endpointMethod=POST',
      );
      expect(constraints.status).toBe(200);
      const byInstitution = Object.fromEntries(
        constraints.body.data.map((c: any) => [c.institutionId, c.request.headers.required ?? []]),
      );
      expect(byInstitution).toEqual({
        'sandbox-psu-business': ['psuId', 'psuCorporateId', 'psuIpAddress'],
        'sandbox-redirect': [],
      });
      const ofPayments = (type?: string) =>
        http.call(
          'GET',
          `/institutions/constraints/payments?institutionIds=sandbox-psu-business&institutionCountryCode=GB${type ? `&paymentType=${type}` : ''}`,
        );
      const payments = await ofPayments('DOMESTIC_PAYMENT');
      expect(payments.body.data).toEqual([
        expect.objectContaining({
          endpointPath: '/payment-auth-requests',
          endpointMethod: 'POST',
          paymentType: 'DOMESTIC_PAYMENT',
        }),
      ]);
      // paymentType is mandatory in the upstream's OpenAPI.
      for (const type of [undefined, 'CHEQUE']) {
        const refused = await ofPayments(type);
        expect([refused.status, JSON.stringify(refused.body)]).toEqual([
          400,
          expect.stringContaining('paymentType'),
        ]);
      }
      for (const query of ['institutionIds=sandbox-redirect', 'institutionCountryCode=GB']) {
        expect((await http.call('GET', `/institutions/constraints/data?${query}`)).status).toBe(400);
      }
      expect(
        (
          await http.call(
            'GET',
            '/institutions/constraints/data?institutionIds=nope&institutionCountryCode=GB',
          )
        ).status,
      ).toBe(404);

      const psu = {
        'psu-id': 'alice-at-bank',
        'psu-corporate-id': 'acme-ltd',
        'psu-ip-address': '203.0.113.7',
      };
      const range = { transactionFrom: '2025-01-01T00:00:00Z' };
      const ask = (headers: Record<string, string>, change: Record<string, unknown> = range) =>
        http.call('POST', '/account-auth-requests', {
          body: { institutionId: 'sandbox-psu-business', applicationUserId: 'alice', ...details(change) },
          headers,
        });
      for (const missing of Object.keys(psu)) {
        const { [missing]: _, ...rest } = psu as Record<string, string>;
        const refused = await ask(rest);
        expect(refused.status, missing).toBe(400);
        expect(refused.body.error.issues[0].parameter).toBe(missing);
      }
      const badIp = await ask({ ...psu, 'psu-ip-address': 'not-an-ip' });
      expect(badIp.body.error.issues[0].parameter).toBe('psu-ip-address');
      expect((await ask(psu)).status).toBe(201);
      // It takes a transaction range, and says so in its constraints.
      const noRange = await ask(psu, {});
      expect([noRange.status, noRange.body.error.issues[0].parameter]).toEqual([
        400,
        'accountRequest.transactionFrom',
      ]);
      expect(constraints.body.data[0].request.body.properties.accountRequest.required).toEqual([
        'transactionFrom',
      ]);
      // Another institution needs none.
      expect((await requestConsent()).status).toBe('AWAITING_AUTHORIZATION');
    });
  });

  // ---- redirect flow

  describe('account authorisation, redirect flow', () => {
    it('creates a consent awaiting authorisation with an authorisationUrl and a state', async () => {
      const consent = await requestConsent({ callback: CALLBACK });
      expect(consent).toMatchObject({
        status: 'AWAITING_AUTHORIZATION',
        institutionId: 'sandbox-redirect',
        applicationUserId: 'alice',
        state: expect.stringMatching(/^[0-9a-f]{32}$/),
        authorisationUrl: `${testConfig().sandbox.publicUrl}/sandbox/bank/consents/${consent.id}`,
      });
      expect(consent.featureScope).toEqual(expect.arrayContaining(['ACCOUNTS', 'ACCOUNT_TRANSACTIONS']));
      expect(consent.featureScope).not.toContain('INITIATE_ACCOUNT_REQUEST');
      expect(consent).not.toHaveProperty('consentToken');
    });

    it('validates the request and names the parameter', async () => {
      const cases: [Record<string, unknown>, number, string][] = [
        [{ institutionId: undefined }, 400, 'institutionId'],
        [{ applicationUserId: undefined }, 400, 'applicationUserId'],
        [{ userUuid: 'not-a-uuid' }, 400, 'userUuid'],
        [{ oneTimeToken: true }, 400, 'oneTimeToken'],
        [{ callback: 'not a url' }, 400, 'callback'],
        [{ institutionId: 'unknown-bank' }, 400, 'institutionId'],
        [details({ featureScope: ['INITIATE_DOMESTIC_SINGLE_PAYMENT'] }), 400, 'accountRequest.featureScope'],
        [details({ featureScope: undefined }), 400, 'accountRequest.featureScope'],
        [details({ featureScope: [] }), 400, 'accountRequest.featureScope'],
        [details({ expiresAt: undefined }), 400, 'accountRequest.expiresAt'],
        [{ accountRequest: undefined }, 400, 'accountRequest.featureScope'],
        [details({ expiresAt: '2001-01-01T00:00:00Z' }), 400, 'accountRequest.expiresAt'],
        [details({ expiresAt: 'tomorrow' }), 400, 'accountRequest.expiresAt'],
        [
          details({ transactionFrom: '2025-02-01T00:00:00Z', transactionTo: '2025-01-01T00:00:00Z' }),
          400,
          'accountRequest.transactionTo',
        ],
        [{ institutionId: 'sandbox-embedded' }, 403, 'INITIATE_ACCOUNT_REQUEST'],
      ];
      for (const [override, status, parameter] of cases) {
        const response = await http.call('POST', '/account-auth-requests', {
          body: { institutionId: 'sandbox-redirect', applicationUserId: 'alice', ...details(), ...override },
        });
        expect(response.status, JSON.stringify(override)).toBe(status);
        expect(
          response.body.error.issues.map((i: any) => i.parameter),
          JSON.stringify(override),
        ).toContain(parameter);
      }
    });

    it('refuses a requested expiry beyond 90 days, never shortening it, and keeps one within', async () => {
      const now = Date.parse((await http.admin('GET', '/clock')).body.data.now);
      const far = await http.call<{ error: { message: string } }>('POST', '/account-auth-requests', {
        body: {
          institutionId: 'sandbox-redirect',
          applicationUserId: 'alice',
          ...details({ expiresAt: new Date(now + 91 * 86_400_000).toISOString() }),
        },
      });
      expect(far.status).toBe(400);
      expect(JSON.stringify(far.body)).toContain('at most 90 days');
      const near = new Date(now + 10 * 86_400_000).toISOString();
      const short = await authorisedConsent(details({ expiresAt: near, featureScope: ['ACCOUNTS'] }));
      expect(short.expiresAt).toBe(near);
      expect((await http.call('GET', `/consents/${short.id}`)).body.data.featureScope).toEqual(['ACCOUNTS']);
    });

    it('runs the browser flow end to end with a one-time token', async () => {
      const consent = await requestConsent({
        callback: CALLBACK,
        oneTimeToken: true,
        forwardParameters: ['basket=42'],
      });
      const page = await openBankPage(consent.authorisationUrl);
      expect(page.status).toBe(200);
      expect(page.contentType).toContain('text/html');
      expect(page.html).toContain('Sandbox Redirect Bank');
      expect(page.decisions).toEqual(['approve', 'deny']);
      expect(page.action).toBe(`/sandbox/bank/consents/${consent.id}`);

      const decided = await submit(page.action!, 'approve');
      expect(decided.status).toBe(302);
      const location = new URL(decided.location!);
      expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
      expect(location.searchParams.get('state')).toBe(consent.state);
      expect(location.searchParams.get('consentId')).toBe(consent.id);
      expect(location.searchParams.get('application-user-id')).toBe('alice');
      expect(location.searchParams.get('user-uuid')).toBe(consent.userUuid);
      expect(location.searchParams.get('institution')).toBe('sandbox-redirect');
      expect(location.searchParams.get('basket')).toBe('42');
      expect(location.searchParams.has('consent')).toBe(false);
      const ott = location.searchParams.get('oneTimeToken')!;
      expect(ott).toBeTruthy();

      const exchanged = await http.call('POST', '/consent-one-time-token', { body: { oneTimeToken: ott } });
      expect(exchanged.status).toBe(201);
      expect(exchanged.body).toMatchObject({
        id: consent.id,
        status: 'AUTHORIZED',
        consentToken: expect.any(String),
      });
      const read = await http.call('GET', `/consents/${consent.id}`);
      expect(read.body.data.consentToken).toBe(exchanged.body.consentToken);

      const reuse = await http.call('POST', '/consent-one-time-token', { body: { oneTimeToken: ott } });
      expect(reuse.status).toBe(400);
      expect(reuse.body.error.issues[0].parameter).toBe('oneTimeToken');

      // The page of a decided consent has nothing left to decide.
      const again = await openBankPage(consent.authorisationUrl);
      expect(again.status).toBe(409);
      expect((await submit(page.action!, 'approve')).status).toBe(409);
    });

    it('hands the consent token to the callback without the one-time-token option', async () => {
      const consent = await requestConsent({ callback: CALLBACK });
      const decided = await approve(consent);
      expect(decided.status).toBe(302);
      const location = new URL(decided.location!);
      const token = location.searchParams.get('consent');
      expect(location.searchParams.get('state')).toBe(consent.state);
      const read = await http.call('GET', `/consents/${consent.id}`);
      expect(read.body.data).toMatchObject({ status: 'AUTHORIZED', consentToken: token });
      expect(Date.parse(read.body.data.authorizedAt)).toBeGreaterThan(0);
    });

    it('expires one-time tokens after 10 minutes on the sandbox clock', async () => {
      const consent = await requestConsent({ callback: CALLBACK, oneTimeToken: true });
      const ott = new URL((await approve(consent)).location!).searchParams.get('oneTimeToken')!;
      await http.admin('POST', '/clock/advance', { seconds: 601 });
      const late = await http.call('POST', '/consent-one-time-token', { body: { oneTimeToken: ott } });
      expect(late.status).toBe(400);
      expect(late.body.error.issues[0].message).toContain('expired');
    });

    it('redirects a denial with error=access_denied and marks the consent REJECTED', async () => {
      const consent = await requestConsent({ callback: CALLBACK });
      const decided = await approve(consent, 'deny');
      expect(decided.status).toBe(302);
      const location = new URL(decided.location!);
      expect(location.searchParams.get('error')).toBe('access_denied');
      expect(location.searchParams.get('state')).toBe(consent.state);
      expect(location.searchParams.has('consent')).toBe(false);
      expect((await http.call('GET', `/consents/${consent.id}`)).body.data.status).toBe('REJECTED');
    });

    it('shows the outcome without a callback, refuses a bad decision, and escapes what it shows', async () => {
      const consent = await requestConsent({ applicationUserId: '<script>alert(1)</script>' });
      const page = await openBankPage(consent.authorisationUrl);
      expect(page.html).not.toContain('<script>');
      expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect((await submit(page.action!, 'maybe')).status).toBe(400);
      const denied = await submit(page.action!, 'deny');
      expect(denied.status).toBe(200);
      expect(denied.html).toContain('Denied');
      expect(
        (await fetch(`${sandbox.url}/sandbox/bank/consents/00000000-0000-4000-8000-000000000000`)).status,
      ).toBe(404);
    });

    it('serves the bank page for consents of other kinds too', async () => {
      const payment = await http.call('POST', '/payment-auth-requests', {
        body: {
          applicationUserId: 'carol',
          institutionId: 'sandbox-payments',
          callback: CALLBACK,
          paymentRequest: {
            paymentIdempotencyId: 'pay-consents-spec-1',
            type: 'DOMESTIC_PAYMENT',
            reference: 'Invoice 7',
            amount: { amount: 12.34, currency: 'GBP' },
            payee: {
              name: 'Jane Payee',
              accountIdentifications: [
                { type: 'SORT_CODE', identification: '123456' },
                { type: 'ACCOUNT_NUMBER', identification: '12345678' },
              ],
            },
          },
        },
      });
      // The payments module is built alongside; when it is there, its consents use this page.
      if (payment.status !== 201) {
        expect(payment.status).toBe(404);
        return;
      }
      const page = await openBankPage(payment.body.data.authorisationUrl);
      expect(page.status).toBe(200);
      expect(page.html).toContain('make a payment');
      expect(page.html).toContain('12.34 GBP');
      expect(page.html).toContain('Jane Payee');
      const decided = await submit(page.action!, 'approve');
      expect(decided.status).toBe(302);
      expect(new URL(decided.location!).searchParams.get('consent')).toBeTruthy();
    });
  });

  // ---- re-authorisation and pre-authorisation

  describe('re-authorisation and pre-authorisation', () => {
    it('re-authorises: new token and expiry, the old token stops working', async () => {
      const consent = await authorisedConsent();
      const patched = await http.call('PATCH', '/account-auth-requests', { consent: consent.consentToken });
      expect(patched.status).toBe(201);
      expect(patched.body.data).toMatchObject({
        id: consent.id,
        status: 'AWAITING_RE_AUTHORIZATION',
        authorisationUrl: expect.stringContaining(`/sandbox/bank/consents/${consent.id}`),
      });
      expect(patched.body.data).not.toHaveProperty('consentToken');
      expect((await approve(patched.body.data)).status).toBe(200);

      const read = (await http.call('GET', `/consents/${consent.id}`)).body.data;
      expect(read.status).toBe('AUTHORIZED');
      expect(read.consentToken).toEqual(expect.any(String));
      expect(read.consentToken).not.toBe(consent.consentToken);

      const stale = await http.call('PATCH', '/account-auth-requests', { consent: consent.consentToken });
      expect(stale.status).toBe(401);
      expect(stale.body.error.issues[0].code).toBe('CONSENT_INVALID');
      expect(
        (await http.call('PATCH', '/account-auth-requests', { consent: read.consentToken })).status,
      ).toBe(201);
    });

    it('re-authorises an expired consent, and refuses missing, foreign and revoked tokens', async () => {
      const consent = await authorisedConsent();
      await http.admin('POST', '/clock/advance', { days: 91 });
      expect((await http.call('GET', `/consents/${consent.id}`)).body.data.status).toBe('EXPIRED');
      const patched = await http.call('PATCH', '/account-auth-requests', { consent: consent.consentToken });
      expect(patched.body.data.status).toBe('AWAITING_RE_AUTHORIZATION');
      await approve(patched.body.data);
      const read = (await http.call('GET', `/consents/${consent.id}`)).body.data;
      expect(read.status).toBe('AUTHORIZED');
      const clock = Date.parse((await http.admin('GET', '/clock')).body.data.now);
      expect(Date.parse(read.expiresAt) - clock).toBeGreaterThan(89 * 86_400_000);

      const missing = await http.call('PATCH', '/account-auth-requests');
      expect(missing.status).toBe(400);
      expect(missing.body.error.issues[0].parameter).toBe('consent');
      const foreign = await http.call('PATCH', '/account-auth-requests', {
        consent: read.consentToken,
        subApplication: SUB_A.id,
      });
      expect(foreign.status).toBe(401);
      await http.call('DELETE', `/consents/${consent.id}`);
      expect(
        (await http.call('PATCH', '/account-auth-requests', { consent: read.consentToken })).status,
      ).toBe(403);
    });

    it('renews a re-authorised consent for 90 days from the approval, whatever span it was first asked for', async () => {
      const consent = await authorisedConsent(
        details({ expiresAt: new Date(Date.now() + 6 * 86_400_000).toISOString() }),
      );
      await http.admin('POST', '/clock/advance', { days: 2 });
      const patched = await http.call('PATCH', '/account-auth-requests', { consent: consent.consentToken });
      await approve(patched.body.data);
      const read = (await http.call('GET', `/consents/${consent.id}`)).body.data;
      expect(read.status).toBe('AUTHORIZED');
      // Spec part 1, rule 2: up to 90 days; the PATCH names no expiry, so the longest, from the approval.
      expect(Date.parse(read.expiresAt)).toBe(Date.parse(read.authorizedAt) + 90 * 86_400_000);
    });

    it('keeps the expiry on a re-authorisation at a bank with the reauthorisationKeepsExpiry quirk', async () => {
      await http.admin('PUT', '/institutions/sandbox-redirect/quirks', { reauthorisationKeepsExpiry: true });
      const consent = await authorisedConsent(
        details({ expiresAt: new Date(Date.now() + 6 * 86_400_000).toISOString() }),
      );
      const patched = await http.call('PATCH', '/account-auth-requests', { consent: consent.consentToken });
      await approve(patched.body.data);
      const read = (await http.call('GET', `/consents/${consent.id}`)).body.data;
      expect([read.status, read.expiresAt]).toEqual(['AUTHORIZED', consent.expiresAt]);
      expect(read.consentToken).not.toBe(consent.consentToken);
    });

    it('updates a pre-authorised consent (PUT) and sends the PSU back to authorise it', async () => {
      const consent = await authorisedConsent();
      const put = await http.call('PUT', '/account-auth-requests', {
        consent: consent.consentToken,
        body: {
          institutionId: 'sandbox-redirect',
          applicationUserId: 'alice',
          ...details({ featureScope: ['ACCOUNTS', 'ACCOUNT_BALANCES'] }),
        },
      });
      expect(put.status).toBe(200);
      expect(put.body.data).toMatchObject({
        id: consent.id,
        status: 'AWAITING_AUTHORIZATION',
        featureScope: ['ACCOUNTS', 'ACCOUNT_BALANCES'],
      });
      await approve(put.body.data);
      const read = (await http.call('GET', `/consents/${consent.id}`)).body.data;
      expect(read.status).toBe('AUTHORIZED');
      expect(read.consentToken).not.toBe(consent.consentToken);

      const other = await http.call('PUT', '/account-auth-requests', {
        consent: read.consentToken,
        body: { institutionId: 'sandbox-flaky', applicationUserId: 'alice', ...details() },
      });
      expect(other.status).toBe(400);
      expect(other.body.error.issues[0].parameter).toBe('institutionId');
      const noHeader = await http.call('PUT', '/account-auth-requests', {
        body: { institutionId: 'sandbox-redirect', applicationUserId: 'alice' },
      });
      expect(noHeader.status).toBe(400);
    });
  });

  // ---- embedded flow

  describe('embedded flow', () => {
    const start = (body: Record<string, unknown> = {}) =>
      http.call('POST', '/embedded-account-auth-requests', {
        body: {
          institutionId: 'sandbox-embedded',
          applicationUserId: 'erin',
          userCredentials: { id: 'erin-at-bank', password: 'secret' },
          ...details(),
          ...body,
        },
      });

    it('goes from credentials to SCA method to code, then AUTHORIZED on the second poll', async () => {
      const created = await start();
      expect(created.status).toBe(201);
      const consent = created.body.data;
      expect(consent.status).toBe('AWAITING_SCA_METHOD');
      expect(consent.scaMethods.map((m: any) => m.type)).toEqual(['SMS_OTP', 'PUSH_OTP']);
      expect(consent).not.toHaveProperty('authorisationUrl');
      expect(JSON.stringify(created.body)).not.toContain('secret');

      const update = (body: Record<string, unknown>) =>
        http.call('PUT', `/embedded-account-auth-requests/${consent.id}`, {
          body: { institutionId: 'sandbox-embedded', ...body },
        });
      const early = await update({ scaCode: '123456' });
      expect(early.status).toBe(400);
      expect(early.body.error.issues[0].parameter).toBe('selectedScaMethod');

      const method = await update({ selectedScaMethod: consent.scaMethods[0] });
      expect(method.status).toBe(201);
      expect(method.body.data).toMatchObject({
        status: 'AWAITING_SCA_CODE',
        selectedScaMethod: consent.scaMethods[0],
      });

      const wrong = await update({ scaCode: '000000' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.issues[0]).toMatchObject({
        parameter: 'scaCode',
        message: expect.stringContaining('2 attempt'),
      });

      const right = await update({ scaCode: '123456' });
      expect(right.status).toBe(201);
      expect(right.body.data.status).toBe('AWAITING_AUTHORIZATION');

      const firstPoll = await http.call('GET', `/consents/${consent.id}`);
      expect(firstPoll.body.data.status).toBe('AWAITING_AUTHORIZATION');
      expect(firstPoll.body.data).not.toHaveProperty('consentToken');
      const secondPoll = await http.call('GET', `/consents/${consent.id}`);
      expect(secondPoll.body.data).toMatchObject({ status: 'AUTHORIZED', consentToken: expect.any(String) });
    });

    it('accepts credentials, method and code in one request', async () => {
      const created = await start({ selectedScaMethod: { id: 'sbx-push-otp' }, scaCode: '123456' });
      expect(created.status).toBe(201);
      expect(created.body.data.status).toBe('AWAITING_AUTHORIZATION');
      const id = created.body.data.id as string;
      await http.call('GET', `/consents/${id}`);
      expect((await http.call('GET', `/consents/${id}`)).body.data.status).toBe('AUTHORIZED');
    });

    it('refuses a wrong password, missing credentials, the redirect bank, and fails after three wrong codes', async () => {
      const wrong = await start({ userCredentials: { id: 'erin', password: 'nope' } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.issues[0].parameter).toBe('userCredentials');
      expect(JSON.stringify(wrong.body)).not.toContain('nope');
      const missing = await start({ userCredentials: undefined });
      expect(missing.status).toBe(400);
      expect(missing.body.error.issues[0].parameter).toBe('userCredentials');
      const noPassword = await start({ userCredentials: { id: 'erin' } });
      expect(noPassword.body.error.issues[0].parameter).toBe('userCredentials.password');
      expect((await start({ institutionId: 'sandbox-redirect' })).status).toBe(403);
      expect((await http.call('GET', '/consents')).body.data).toEqual([]);

      const created = (await start({ selectedScaMethod: { id: 'sbx-sms-otp' } })).body.data;
      for (let i = 0; i < 3; i++) {
        await http.call('PUT', `/embedded-account-auth-requests/${created.id}`, {
          body: { institutionId: 'sandbox-embedded', scaCode: '999999' },
        });
      }
      expect((await http.call('GET', `/consents/${created.id}`)).body.data.status).toBe('FAILED');
      const late = await http.call('PUT', `/embedded-account-auth-requests/${created.id}`, {
        body: { institutionId: 'sandbox-embedded', scaCode: '123456' },
      });
      expect(late.status).toBe(409);
    });
  });

  // ---- consents

  describe('consents', () => {
    it('lists with filters, reads, and omits the version-2 fields', async () => {
      const alice = await authorisedConsent({
        applicationUserId: 'alice',
        ...details({ transactionFrom: '2025-01-01T00:00:00Z' }),
      });
      await requestConsent({ applicationUserId: 'bob' });
      await requestConsent({ applicationUserId: 'bob', institutionId: 'sandbox-flaky' });

      const all = await http.call('GET', '/consents');
      expect(all.body.meta).toMatchObject({
        count: 3,
        pagination: { totalCount: 3, self: { offset: 0, limit: 1000 } },
      });
      const byAppUser = await http.call('GET', '/consents?filter[applicationUserId]=bob');
      expect(byAppUser.body.data).toHaveLength(2);
      const byUser = await http.call('GET', `/consents?filter[userUuid]=${alice.userUuid}`);
      expect(byUser.body.data.map((c: any) => c.id)).toEqual([alice.id]);
      const byInstitution = await http.call('GET', '/consents?filter[institution]=sandbox-flaky');
      expect(byInstitution.body.data).toHaveLength(1);
      const badFilter = await http.call('GET', '/consents?filter[userUuid]=nope');
      expect(badFilter.status).toBe(400);
      expect(badFilter.body.error.issues[0].parameter).toBe('filter[userUuid]');

      const v1 = (await http.call('GET', `/consents/${alice.id}`)).body.data;
      expect(v1).toMatchObject({
        expiresAt: expect.any(String),
        authorizedAt: expect.any(String),
        timeToExpire: expect.stringMatching(/^P/),
        featureScope: expect.any(Array),
        transactionFrom: '2025-01-01T00:00:00.000Z',
      });
      const v2 = (await http.call('GET', `/consents/${alice.id}`, { v2: true })).body.data;
      for (const field of [
        'referenceId',
        'timeToExpire',
        'expiresAt',
        'authorizedAt',
        'featureScope',
        'transactionFrom',
        'transactionTo',
      ]) {
        expect(v2, field).not.toHaveProperty(field);
      }
      expect(v2).toMatchObject({ id: alice.id, status: 'AUTHORIZED', consentToken: alice.consentToken });
      const v2List = (await http.call('GET', `/consents?filter[userUuid]=${alice.userUuid}`, { v2: true }))
        .body.data;
      expect(v2List[0]).not.toHaveProperty('featureScope');
    });

    it('caps an unfiltered list at the newest 1000', async () => {
      const ids: string[] = [];
      for (let batch = 0; batch < 1001; batch += 77) {
        const size = Math.min(77, 1001 - batch);
        const created = await Promise.all(
          Array.from({ length: size }, () =>
            http.call('POST', '/account-auth-requests', {
              body: { institutionId: 'sandbox-redirect', applicationUserId: 'many', ...details() },
            }),
          ),
        );
        ids.push(...created.map((r) => r.body.data.id as string));
      }
      const list = await http.call('GET', '/consents');
      expect(list.body.data).toHaveLength(1000);
      expect(list.body.meta.pagination.totalCount).toBe(1001);
      const oldest = (await http.call('GET', '/consents?offset=1000')).body.data;
      expect(oldest).toHaveLength(1);
      const filtered = await http.call('GET', '/consents?filter[applicationUserId]=many');
      expect(filtered.body.data).toHaveLength(1001);
      expect(new Set(filtered.body.data.map((c: any) => c.id))).toEqual(new Set(ids));
    }, 60_000);

    it('expires an authorised consent after 91 days on the sandbox clock', async () => {
      const consent = await authorisedConsent();
      await http.admin('POST', '/clock/advance', { days: 91 });
      const read = (await http.call('GET', `/consents/${consent.id}`)).body.data;
      expect(read.status).toBe('EXPIRED');
      expect(read).not.toHaveProperty('consentToken');
    });

    it('revokes on DELETE and extends an authorised consent', async () => {
      const consent = await authorisedConsent();
      const now = (await http.admin('GET', '/clock')).body.data.now as string;
      const extended = await http.call('POST', `/consents/${consent.id}/extend`, {
        body: { lastConfirmedAt: now },
      });
      expect(extended.status).toBe(200);
      expect(extended.body.data).toMatchObject({
        lastConfirmedAt: now,
        reconfirmBy: new Date(Date.parse(now) + 90 * 86_400_000).toISOString(),
      });
      const future = await http.call('POST', `/consents/${consent.id}/extend`, {
        body: { lastConfirmedAt: new Date(Date.parse(now) + 3_600_000).toISOString() },
      });
      expect(future.status).toBe(400);
      expect(future.body.error.issues[0].parameter).toBe('lastConfirmedAt');

      const deleted = await http.call('DELETE', `/consents/${consent.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body.data).toMatchObject({
        id: consent.id,
        deleteStatus: 'SUCCESS',
        institutionId: 'sandbox-redirect',
      });
      const read = (await http.call('GET', `/consents/${consent.id}`)).body.data;
      expect(read.status).toBe('REVOKED');
      expect(read).not.toHaveProperty('consentToken');
      expect((await http.call('DELETE', '/consents/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    });

    it("keeps sub-applications apart from the root's consents", async () => {
      const rootConsent = await authorisedConsent();
      const subConsent = await authorisedConsent({}, { subApplication: SUB_A.id });
      expect(
        (await http.call('GET', `/consents/${rootConsent.id}`, { subApplication: SUB_A.id })).status,
      ).toBe(404);
      const subList = await http.call('GET', '/consents', { auth: { id: SUB_A.id, secret: SUB_A.secret } });
      expect(subList.body.data.map((c: any) => c.id)).toEqual([subConsent.id]);
      const rootList = await http.call('GET', '/consents');
      expect(rootList.body.data.map((c: any) => c.id)).toEqual([rootConsent.id]);
      const otherSub = await http.call('GET', '/consents', { subApplication: SUB_B.id });
      expect(otherSub.body.data).toEqual([]);
    });
  });
});
