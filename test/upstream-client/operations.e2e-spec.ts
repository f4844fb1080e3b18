import { beforeAll, describe, expect, it } from 'vitest';
import { type UpstreamClient, UpstreamError } from '#libs/upstream-client';
import { hostedVrpBody, paymentRequest, sweepingVrpBody } from '../kit/sandbox-payments.js';
import {
  accountRequest,
  clientFor,
  failure,
  SUB_A,
  tinyServer,
  useUpstreamKit,
} from '../kit/upstream-test-kit.js';

describe('upstream client: every operation against the sandbox over HTTP', () => {
  const kit = useUpstreamKit();
  let client: UpstreamClient;

  beforeAll(() => {
    client = kit.client();
  });

  it('institutions: list and get (bare answer)', async () => {
    const list = await client.institutions.list();
    expect(list.tracingId).toEqual(expect.any(String));
    expect(list.requestId).toEqual(expect.any(String));
    expect(list.data.map((i) => i.id)).toEqual(expect.arrayContaining(['sandbox-redirect', 'sandbox-flaky']));
    const one = await client.institutions.get('sandbox-embedded');
    expect(one.data).toMatchObject({ id: 'sandbox-embedded', environmentType: 'SANDBOX' });
    expect(one.data.features).toContain('INITIATE_EMBEDDED_ACCOUNT_REQUEST');
  });

  it('users: create, list, get, update (JSON Patch), delete', async () => {
    const created = await client.users.create({ applicationUserId: 'ops-user', referenceId: 'ref-1' });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      applicationUserId: 'ops-user',
      referenceId: 'ref-1',
      uuid: expect.any(String),
    });
    const uuid = created.data.uuid;
    expect((await client.users.list({ applicationUserId: 'ops-user' })).data.map((u) => u.uuid)).toEqual([
      uuid,
    ]);
    expect((await client.users.get(uuid)).data.applicationUserId).toBe('ops-user');
    const patched = await client.users.update(uuid, [
      { op: 'replace', path: '/referenceId', value: 'ref-2' },
    ]);
    expect(patched.data.referenceId).toBe('ref-2');
    const deleted = await client.users.delete(uuid);
    expect(deleted.tracingId).toEqual(expect.any(String));
    expect(deleted.data).toMatchObject({ id: uuid, deleteStatus: 'SUCCESS' });
    const gone = await failure<UpstreamError>(() => client.users.get(uuid));
    expect(gone).toBeInstanceOf(UpstreamError);
    expect(gone.kind).toBe('NOT_FOUND');
  });

  it('applications: list the sub-applications and get one; sub-application header narrows the view', async () => {
    const list = await client.applications.list();
    expect(list.data.map((a) => a.id)).toEqual(expect.arrayContaining([SUB_A]));
    expect(list.totalCount).toBe(list.data.length);
    const one = await client.applications.get(SUB_A);
    expect(one.data.id).toBe(SUB_A);
    const asSub = await client.applications.list({}, { subApplication: SUB_A });
    expect(asSub.data).toEqual([]);
  });

  it('redirect flow: create, read, list, re-authorise, update pre-authorisation, one-time token, delete', async () => {
    const created = await client.consents.createAccountAuthorisation({
      institutionId: 'sandbox-redirect',
      applicationUserId: 'alice',
      callback: 'https://bff.example/callback',
      oneTimeToken: true,
      accountRequest: accountRequest(),
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      status: 'AWAITING_AUTHORIZATION',
      authorisationUrl: expect.any(String),
    });
    const consentId = created.data.id;

    // The user approves on the hosted bank page; the callback carries a one-time token.
    const page = new URL(created.data.authorisationUrl!);
    const approved = await fetch(`${kit.sandbox.url}${page.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=approve',
      redirect: 'manual',
    });
    expect(approved.status).toBe(302);
    const ott = new URL(approved.headers.get('location')!).searchParams.get('oneTimeToken')!;
    const exchanged = await client.consents.exchangeOneTimeToken(ott);
    expect(exchanged.data).toMatchObject({
      id: consentId,
      status: 'AUTHORIZED',
      consentToken: expect.any(String),
    });
    const token = exchanged.data.consentToken!;

    expect((await client.consents.get(consentId)).data.status).toBe('AUTHORIZED');
    const listed = await client.consents.list({ applicationUserId: 'alice' });
    expect(listed.data.map((c) => c.id)).toContain(consentId);

    const reauth = await client.consents.reauthoriseAccount({
      consent: token,
      institutionId: 'sandbox-redirect',
    });
    expect(reauth.status).toBe(201);
    expect(reauth.data).toMatchObject({ id: consentId, status: 'AWAITING_RE_AUTHORIZATION' });

    const updated = await client.consents.updatePreAuthorisation(
      { institutionId: 'sandbox-redirect', applicationUserId: 'alice', accountRequest: accountRequest() },
      { consent: token, institutionId: 'sandbox-redirect' },
    );
    expect(updated.status).toBe(200);

    const deleted = await client.consents.delete(consentId);
    expect(deleted.data).toMatchObject({ id: consentId });
    expect((await client.consents.get(consentId)).data.status).toBe('REVOKED');
  });

  it('embedded flow: credentials, SCA method, SCA code, then AUTHORIZED by polling', async () => {
    const created = await client.consents.createEmbeddedAccountAuthorisation({
      institutionId: 'sandbox-embedded',
      applicationUserId: 'erin',
      userCredentials: { id: 'erin-at-bank', password: 'secret' },
      accountRequest: accountRequest(),
    });
    expect(created.data.status).toBe('AWAITING_SCA_METHOD');
    const method = created.data.scaMethods![0];
    const chosen = await client.consents.updateEmbeddedAccountAuthorisation(created.data.id, {
      institutionId: 'sandbox-embedded',
      selectedScaMethod: method,
    });
    expect(chosen.data.status).toBe('AWAITING_SCA_CODE');
    const coded = await client.consents.updateEmbeddedAccountAuthorisation(created.data.id, {
      institutionId: 'sandbox-embedded',
      scaCode: '123456',
    });
    expect(coded.data.status).toBe('AWAITING_AUTHORIZATION');
    let status = coded.data.status;
    for (let poll = 0; poll < 5 && status !== 'AUTHORIZED'; poll += 1) {
      status = (await client.consents.get(created.data.id)).data.status;
    }
    expect(status).toBe('AUTHORIZED');
  });

  it('extends a consent', async () => {
    const { id } = await kit.dataConsent();
    const extended = await client.consents.extend(id, { lastConfirmedAt: new Date().toISOString() });
    expect(extended.data.id).toBe(id);
  });

  it('financial data: accounts, account, balances, statements, statement, beneficiaries, categorisation', async () => {
    const { token } = await kit.dataConsent();
    const options = { consent: token, institutionId: 'sandbox-redirect' };
    const accounts = await client.data.getAccounts(options);
    expect(accounts.data).toHaveLength(3);
    const current = accounts.data.find((a) => a.accountType === 'CURRENT')!;
    expect((await client.data.getAccount(current.id, options)).data.id).toBe(current.id);
    const balances = await client.data.getAccountBalances(current.id, options);
    expect(balances.data.mainBalanceAmount).toMatchObject({ currency: expect.any(String) });

    const statements = await client.data.getStatements(current.id, {}, options);
    expect(statements.data.length).toBeGreaterThan(0);
    const statement = await client.data.getStatement(current.id, statements.data[0].id, options);
    expect(statement.data.id).toBe(statements.data[0].id);

    const beneficiaries = await client.data.getBeneficiaries(current.id, options);
    expect(Array.isArray(beneficiaries.data)).toBe(true);

    const tx = await client.data.getTransactions(current.id, { limit: 5, with: ['categorisation'] }, options);
    expect(tx.data).toHaveLength(5);
    expect(tx.totalCount).toBeGreaterThanOrEqual(5);
    expect(tx.data[0].enrichment).toBeDefined();

    const categorisation = await client.data.createCategorisation(
      current.id,
      { categorisationType: 'consumer', countryCode: 'GB' },
      options,
    );
    expect(categorisation.data.categorisationId).toEqual(expect.any(String));
    const categorised = await client.data.getCategorisation(
      current.id,
      categorisation.data.categorisationId,
      options,
    );
    expect(categorised.tracingId).toEqual(expect.any(String));
  });

  it('payments: authorisation, payment (idempotent POST), details', async () => {
    const request = paymentRequest('order-ops-1', 10.5);
    const auth = await client.payments.createAuthorisation({
      institutionId: 'sandbox-payments',
      applicationUserId: 'shopper-1',
      paymentRequest: request,
    });
    expect(auth.data.status).toBe('AWAITING_AUTHORIZATION');
    const token = await kit.authorise(auth.data.id);
    const paid = await client.payments.create(request, {
      consent: token,
      institutionId: 'sandbox-payments',
    });
    expect(paid.status).toBe(201);
    expect(paid.data).toMatchObject({ paymentIdempotencyId: 'order-ops-1', amount: 10.5 });
    const details = await client.payments.getDetails(paid.data.id, {
      consent: token,
      institutionId: 'sandbox-redirect',
    });
    expect(details.data.payments[0].id).toBe(paid.data.id);
  });

  it('sweeping VRP: consent, details, funds confirmation, payment, payment details', async () => {
    const consent = await client.vrp.createSweepingConsent(sweepingVrpBody());
    expect(consent.status).toBe(201);
    const token = await kit.authorise(consent.data.id);
    const read = await client.vrp.getSweepingConsent(consent.data.id);
    expect(read.data).toMatchObject({ id: consent.data.id, status: 'AUTHORIZED' });
    const funds = await client.vrp.confirmFunds(
      { reference: 'check', paymentAmount: { amount: 20, currency: 'GBP' } },
      { consent: token, institutionId: 'sandbox-redirect' },
    );
    expect(funds.data.fundsAvailable.fundsAvailable).toEqual(expect.any(Boolean));
    const payment = await client.vrp.createPayment(
      {
        paymentIdempotencyId: 'vrp-ops-1',
        psuAuthenticationMethod: 'SCA_NOT_REQUIRED',
        paymentAmount: { amount: 20, currency: 'GBP' },
      },
      { consent: token, institutionId: 'sandbox-redirect' },
    );
    expect(payment.data.id).toEqual(expect.any(String));
    const details = await client.vrp.getPaymentDetails(payment.data.id, {
      consent: token,
      institutionId: 'sandbox-redirect',
    });
    expect(details.data.id).toBe(payment.data.id);
  });

  it('hosted commercial VRP request', async () => {
    const created = await kit.admin.call('POST', '/hosted/vrp-requests/commercial', {
      body: hostedVrpBody(),
    });
    expect(created.status).toBe(201);
    const request = await client.vrp.getCommercialRequest(created.body.data.requestId);
    expect(request.data.requestId).toBe(created.body.data.requestId);
  });

  it('notifications and webhooks: list and delete subscriptions, categories, register, list, delete', async () => {
    const body = {
      eventTypeId: 'payment.status.completed',
      notification: { type: 'WEBHOOK', url: 'https://x.example/n' },
    };
    expect((await kit.admin.call('POST', '/notifications/event-subscriptions', { body })).status).toBe(201);
    const subscriptions = await client.webhooks.listEventSubscriptions();
    expect(subscriptions.data.map((s) => s.eventTypeId)).toEqual(['payment.status.completed']);
    const removed = await client.webhooks.deleteEventSubscription('payment.status.completed');
    expect(removed.data.eventTypeId).toBe('payment.status.completed');

    const categories = await client.webhooks.getCategories();
    expect(categories.tracingId).toEqual(expect.any(String)); // from `metadata`, not `meta`
    expect(categories.data.categories.map((c) => c.name)).toContain('payment.state.success');

    const registered = await client.webhooks.register(
      {
        applicationId: SUB_A,
        categories: ['payment.state.success'],
        callbackUrl: { main: { url: 'https://merchant.example/hooks' } },
      },
      { subApplication: SUB_A },
    );
    expect(registered.data.webhookSecret).toEqual(expect.any(String));
    const listed = await client.webhooks.list({ subApplication: SUB_A });
    expect(listed.data.active.map((w) => w.id)).toEqual([registered.data.id]);
    const deleted = await client.webhooks.delete(registered.data.id, { subApplication: SUB_A });
    expect(deleted.data.id).toBe(registered.data.id);
    expect((await client.webhooks.list({ subApplication: SUB_A })).data.active).toEqual([]);
  });

  it('version 2 sends x-yapily-api-version, and the sandbox answers version-2 consents', async () => {
    const { id } = await kit.dataConsent();
    const v1 = await client.consents.get(id);
    expect(v1.data.expiresAt).toEqual(expect.any(String));
    const v2 = await kit.client({ apiVersion: '2.0-ALPHA' }).consents.get(id);
    expect(v2.data.id).toBe(id);
    expect(v2.data).not.toHaveProperty('expiresAt');
  });

  it('sends every header once, right: Basic auth, consent, sub-application, PSU, version, request id', async () => {
    const server = await tinyServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ meta: { tracingId: 'tiny' }, data: [] }));
    });
    const v2 = clientFor(server.url, { apiVersion: '2.0-ALPHA' });
    try {
      const result = await v2.data.getAccounts({
        consent: 'consent-token-x',
        institutionId: 'tiny',
        subApplication: SUB_A,
        psu: { id: 'psu-1', corporateId: 'corp-1', ipAddress: '10.0.0.1' },
        requestId: 'req-123',
      });
      expect(result).toMatchObject({ tracingId: 'tiny', requestId: 'req-123', data: [] });
      const [sent] = server.requests;
      expect(sent.headers).toMatchObject({
        authorization: `Basic ${Buffer.from('app-id:app-secret').toString('base64')}`,
        consent: 'consent-token-x',
        'sub-application': SUB_A,
        'psu-id': 'psu-1',
        'psu-corporate-id': 'corp-1',
        'psu-ip-address': '10.0.0.1',
        'x-yapily-api-version': '2.0-ALPHA',
        'x-request-id': 'req-123',
        connection: 'keep-alive',
      });
      const v1 = clientFor(server.url);
      await v1.institutions.get('x/../y', { requestId: 'req-2' }).finally(() => v1.close());
      expect(server.requests[1].url).toBe('/institutions/x%2F..%2Fy');
      expect(server.requests[1].headers).not.toHaveProperty('x-yapily-api-version');
      expect(server.requests[1].headers).not.toHaveProperty('consent');
    } finally {
      await v2.close();
      await server.close();
    }
  });
});
