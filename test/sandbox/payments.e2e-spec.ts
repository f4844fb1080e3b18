import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SandboxEvent, SandboxEvents } from '../../apps/sandbox/src/core/index.js';
import { hostedVrpBody, PAYEE, PAYER, paymentRequest, sweepingVrpBody, testConfig } from '../kit/index.js';
import { useSandbox } from '../kit/sandbox-fixture.js';

describe('sandbox payments, sweeping VRP and hosted commercial VRP', () => {
  const { sandbox, http } = useSandbox();
  const events: SandboxEvent[] = [];
  /** The terminal events (success/failed) of one payment. */
  const paymentEvents = (paymentId: string) =>
    events.filter(
      (e) =>
        (e.type === 'payment.state.success' || e.type === 'payment.state.failed') &&
        e.data.paymentId === paymentId,
    );
  const pendingEvents = (paymentId: string) =>
    events.filter((e) => e.type === 'payment.state.pending' && e.data.paymentId === paymentId);

  beforeAll(() => {
    sandbox.app.get(SandboxEvents).subscribe((event) => events.push(event));
  });
  beforeEach(() => {
    events.length = 0;
  });

  async function authorise(consentId: string): Promise<string> {
    const res = await http.admin('POST', `/consents/${consentId}/authorise`);
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('AUTHORIZED');
    return res.body.data.consentToken as string;
  }

  const inCurrency = (id: string, amount: number, currency: string) =>
    paymentRequest(id, amount, { amount: { amount, currency } });

  async function authorisedPayment(id: string, amount = 10.5, currency = 'GBP') {
    const created = await http.call('POST', '/payment-auth-requests', {
      body: {
        institutionId: 'sandbox-payments',
        applicationUserId: 'shopper-1',
        paymentRequest: inCurrency(id, amount, currency),
      },
    });
    expect(created.status).toBe(201);
    return { consentId: created.body.data.id as string, token: await authorise(created.body.data.id) };
  }

  async function pay(id: string, amount: number, currency = 'GBP') {
    const { token } = await authorisedPayment(id, amount, currency);
    const res = await http.call('POST', '/payments', {
      consent: token,
      body: inCurrency(id, amount, currency),
    });
    expect(res.status).toBe(201);
    return { token, payment: res.body.data };
  }

  async function sweepingToken(body = sweepingVrpBody()) {
    const created = await http.call('POST', '/variable-recurring-payments/sweeping/consents', { body });
    expect(created.status).toBe(201);
    return { consentId: created.body.data.id as string, token: await authorise(created.body.data.id) };
  }

  const vrpPayment = (token: string, paymentIdempotencyId: string, amount: number, extra = {}) =>
    http.call('POST', '/variable-recurring-payments/payments', {
      consent: token,
      body: {
        paymentIdempotencyId,
        psuAuthenticationMethod: 'SCA_NOT_REQUIRED',
        paymentAmount: { amount, currency: 'GBP' },
        ...extra,
      },
    });

  describe('single payments', () => {
    it('runs a payment end to end: request, authorise, pay, settle, one success event', async () => {
      const created = await http.call('POST', '/payment-auth-requests', {
        body: {
          institutionId: 'sandbox-payments',
          applicationUserId: 'shopper-1',
          callback: 'https://merchant.example/back',
          paymentRequest: paymentRequest('order-1001', 10.5),
        },
      });
      expect(created.status).toBe(201);
      expect(created.body.meta.tracingId).toEqual(expect.any(String));
      const consent = created.body.data;
      expect(consent).toMatchObject({
        institutionId: 'sandbox-payments',
        applicationUserId: 'shopper-1',
        status: 'AWAITING_AUTHORIZATION',
        userUuid: expect.any(String),
      });
      expect(consent.featureScope).toContain('INITIATE_DOMESTIC_SINGLE_PAYMENT');
      expect(new URL(consent.authorisationUrl).pathname).toBe(`/sandbox/bank/consents/${consent.id}`);
      expect(consent.consentToken).toBeUndefined();

      const token = await authorise(consent.id);
      const paid = await http.call('POST', '/payments', {
        consent: token,
        body: paymentRequest('order-1001', 10.5),
      });
      expect(paid.status).toBe(201);
      const payment = paid.body.data;
      expect(payment).toMatchObject({
        id: expect.any(String),
        paymentIdempotencyId: 'order-1001',
        status: 'PENDING',
        amount: 10.5,
        currency: 'GBP',
        amountDetails: { amount: 10.5, currency: 'GBP' },
        payeeDetails: PAYEE,
        reference: 'Invoice 42',
        statusDetails: { status: 'PENDING', isoStatus: { code: 'PDNG' } },
      });
      expect(Date.parse(payment.createdAt)).not.toBeNaN();
      expect(paymentEvents(payment.id)).toHaveLength(0);
      expect(pendingEvents(payment.id)).toMatchObject([
        { type: 'payment.state.pending', data: { status: 'PENDING', isoStatus: { code: 'PDNG' } } },
      ]);

      const details = await http.call('GET', `/payments/${payment.id}/details`, { consent: token });
      expect(details.status).toBe(200);
      expect(details.body.data.payments).toHaveLength(1);
      expect(details.body.data.payments[0]).toMatchObject({ id: payment.id, status: 'COMPLETED' });
      await http.call('GET', `/payments/${payment.id}/details`, { consent: token });

      const sent = paymentEvents(payment.id);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({
        applicationId: testConfig().upstream.applicationId,
        type: 'payment.state.success',
        data: {
          paymentId: payment.id,
          paymentIdempotencyId: 'order-1001',
          status: 'COMPLETED',
          amount: 10.5,
          currency: 'GBP',
          institutionId: 'sandbox-payments',
          consentId: consent.id,
          paymentType: 'DOMESTIC_PAYMENT',
        },
      });
    });

    it('refuses a second payment with the consent, and replays the same idempotency id', async () => {
      const { token, payment } = await pay('order-2001', 12);

      const replay = await http.call('POST', '/payments', {
        consent: token,
        body: paymentRequest('order-2001', 12),
      });
      expect(replay.status).toBe(201);
      expect(replay.body.data.id).toBe(payment.id);

      const second = await http.call('POST', '/payments', {
        consent: token,
        body: paymentRequest('order-2002', 12),
      });
      expect(second.status).toBe(403);
      expect(second.body.error.issues[0]).toMatchObject({ type: 'CONSENT', code: 'CONSENT_CONSUMED' });

      await http.call('GET', `/payments/${payment.id}/details`, { consent: token });
      await http.call('POST', '/payments', { consent: token, body: paymentRequest('order-2001', 12) });
      expect(paymentEvents(payment.id)).toHaveLength(1);
    });

    it('refuses a payment that differs from the authorised one, and keeps the consent usable', async () => {
      const { token } = await authorisedPayment('order-3001', 25);
      const otherAmount = await http.call('POST', '/payments', {
        consent: token,
        body: paymentRequest('order-3001', 26),
      });
      expect(otherAmount.status).toBe(400);
      expect(otherAmount.body.error.issues[0]).toMatchObject({
        type: 'INVALID_REQUEST',
        code: 'INVALID_PROPERTY_UNEXPECTED_VALUE',
        parameter: 'amount',
      });
      const otherPayee = await http.call('POST', '/payments', {
        consent: token,
        body: paymentRequest('order-3001', 25, {
          payee: {
            ...PAYEE,
            accountIdentifications: [
              PAYEE.accountIdentifications[0],
              { type: 'ACCOUNT_NUMBER', identification: '00000001' },
            ],
          },
        }),
      });
      expect(otherPayee.status).toBe(400);
      expect(otherPayee.body.error.issues[0].parameter).toBe('payee.accountIdentifications');
      const otherId = await http.call('POST', '/payments', {
        consent: token,
        body: paymentRequest('order-3999', 25),
      });
      expect(otherId.status).toBe(400);
      expect(otherId.body.error.issues[0].parameter).toBe('paymentIdempotencyId');

      const right = await http.call('POST', '/payments', {
        consent: token,
        body: paymentRequest('order-3001', 25),
      });
      expect(right.status).toBe(201);
    });

    it('keeps .97 PENDING until the control API moves it; terminal statuses do not move again', async () => {
      const { token, payment } = await pay('order-4097', 20.97);
      for (let i = 0; i < 2; i++) {
        const details = await http.call('GET', `/payments/${payment.id}/details`, { consent: token });
        expect(details.body.data.payments[0].status).toBe('PENDING');
      }
      expect(paymentEvents(payment.id)).toHaveLength(0);

      const moved = await http.admin('POST', `/payments/${payment.id}/status`, { status: 'COMPLETED' });
      expect(moved.status).toBe(200);
      expect(moved.body.data).toMatchObject({
        id: payment.id,
        status: 'COMPLETED',
        eventSentAt: expect.any(String),
      });
      expect(paymentEvents(payment.id).map((e) => e.type)).toEqual(['payment.state.success']);
      const details = await http.call('GET', `/payments/${payment.id}/details`, { consent: token });
      expect(details.body.data.payments[0].status).toBe('COMPLETED');

      const again = await http.admin('POST', `/payments/${payment.id}/status`, { status: 'FAILED' });
      expect(again.status).toBe(409);
      expect(paymentEvents(payment.id)).toHaveLength(1);

      const other = (await pay('order-4100', 41)).payment;
      const forced = await http.admin('POST', `/payments/${other.id}/status`, {
        status: 'EXPIRED',
        statusReason: 'TEST_TIMEOUT',
      });
      expect(forced.body.data.statusDetails).toMatchObject({
        status: 'EXPIRED',
        statusReason: 'TEST_TIMEOUT',
      });
      expect(paymentEvents(other.id)).toMatchObject([
        { type: 'payment.state.failed', data: { status: 'EXPIRED' } },
      ]);
      expect((await http.admin('POST', `/payments/${other.id}/status`, { status: 'PAID' })).status).toBe(400);
      expect(
        (await http.admin('POST', `/payments/${crypto.randomUUID()}/status`, { status: 'FAILED' })).status,
      ).toBe(404);
    });

    it('settles .99 as FAILED and .98 as DECLINED on the first details read, with one failed event each', async () => {
      for (const [amount, currency, status, reason] of [
        [30.99, 'GBP', 'FAILED', 'INSUFFICIENT_FUNDS'],
        [30.98, 'GBP', 'DECLINED', 'DECLINED_BY_INSTITUTION'],
        // By the first two decimals whatever the currency's third.
        [30.995, 'KWD', 'FAILED', 'INSUFFICIENT_FUNDS'],
      ] as const) {
        const { token, payment } = await pay(`order-5${amount}${currency}`, amount, currency);
        const details = await http.call('GET', `/payments/${payment.id}/details`, { consent: token });
        expect(details.body.data.payments[0]).toMatchObject({
          status,
          statusDetails: { status, statusReason: reason, isoStatus: { code: 'RJCT' } },
        });
        await http.call('GET', `/payments/${payment.id}/details`, { consent: token });
        const sent = paymentEvents(payment.id);
        expect(sent).toHaveLength(1);
        expect(sent[0]).toMatchObject({
          type: 'payment.state.failed',
          data: { status, statusReason: reason },
        });
      }
    });

    it('validates amounts and mandatory fields in the upstream error shape', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [paymentRequest('v-1', 10.005), 'paymentRequest.amount.amount'],
        [paymentRequest('v-2', 0), 'paymentRequest.amount.amount'],
        [paymentRequest('v-3', -5), 'paymentRequest.amount.amount'],
        [
          { ...paymentRequest('v-4'), amount: { amount: '10.00', currency: 'GBP' } },
          'paymentRequest.amount.amount',
        ],
        [
          { ...paymentRequest('v-5'), amount: { amount: 10, currency: 'gbp' } },
          'paymentRequest.amount.currency',
        ],
        [paymentRequest('x'.repeat(36)), 'paymentRequest.paymentIdempotencyId'],
        [
          { ...paymentRequest('v-7'), paymentIdempotencyId: undefined },
          'paymentRequest.paymentIdempotencyId',
        ],
        [
          { ...paymentRequest('v-8'), payee: { name: 'No account' } },
          'paymentRequest.payee.accountIdentifications',
        ],
        [{ ...paymentRequest('v-9'), type: 'CHEQUE' }, 'paymentRequest.type'],
      ];
      for (const [request, parameter] of cases) {
        const res = await http.call('POST', '/payment-auth-requests', {
          body: {
            institutionId: 'sandbox-payments',
            applicationUserId: 'shopper-1',
            paymentRequest: request,
          },
        });
        expect(res.status, parameter).toBe(400);
        expect(res.body.error).toMatchObject({ code: 400, status: 'BAD_REQUEST', source: 'YAPILY' });
        expect(res.body.error.issues, JSON.stringify(res.body.error.issues)).toContainEqual(
          expect.objectContaining({
            type: 'INVALID_REQUEST',
            code: 'INVALID_PROPERTY_UNEXPECTED_VALUE',
            parameter,
          }),
        );
      }

      const noUser = await http.call('POST', '/payment-auth-requests', {
        body: { institutionId: 'sandbox-payments', paymentRequest: paymentRequest('v-10') },
      });
      expect(noUser.status).toBe(400);
      expect(noUser.body.error.issues[0].parameter).toBe('applicationUserId');

      const badSortCode = await http.call('POST', '/payment-auth-requests', {
        body: {
          institutionId: 'sandbox-payments',
          applicationUserId: 'shopper-1',
          paymentRequest: paymentRequest('v-11', 5, {
            payee: {
              name: 'X',
              accountIdentifications: [{ type: 'IBAN', identification: 'GB33BUKB20201555555555' }],
            },
          }),
        },
      });
      expect(badSortCode.status).toBe(400);
      expect(badSortCode.body.error.issues[0].parameter).toBe('paymentRequest.payee.accountIdentifications');

      const noConsent = await http.call('POST', '/payments', { body: paymentRequest('v-12') });
      expect(noConsent.status).toBe(400);
      expect(noConsent.body.error.issues[0]).toMatchObject({ parameter: 'consent' });
    });

    it('takes as many decimals as the currency has (ISO 4217), no more, and echoes the amount', async () => {
      const request = (id: string, amount: number, currency: string) =>
        http.call('POST', '/payment-auth-requests', {
          body: {
            institutionId: 'sandbox-payments',
            applicationUserId: 'shopper-1',
            paymentRequest: inCurrency(id, amount, currency),
          },
        });
      for (const [amount, currency] of [
        [12.345, 'KWD'],
        [1200, 'JPY'],
        [0.01, 'EUR'],
      ] as const) {
        const res = await request(`d-${currency}`, amount, currency);
        expect(res.status, `${amount} ${currency}`).toBe(201);
        const token = await authorise(res.body.data.id);
        const paid = await http.call('POST', '/payments', {
          consent: token,
          body: inCurrency(`d-${currency}`, amount, currency),
        });
        expect(paid.status).toBe(201);
        expect(paid.body.data.amountDetails).toEqual({ amount, currency });
      }
      for (const [amount, currency] of [
        [12.3456, 'KWD'],
        [1200.5, 'JPY'],
        [12.345, 'GBP'],
      ] as const) {
        const res = await request(`r-${currency}`, amount, currency);
        expect(res.status, `${amount} ${currency}`).toBe(400);
        expect(res.body.error.issues[0]).toMatchObject({ parameter: 'paymentRequest.amount.amount' });
        expect(res.body.error.issues[0].message).toContain(`decimal places for ${currency}`);
      }
    });

    it('answers the feature error where the institution does not offer the payment', async () => {
      const dataOnly = await http.call('POST', '/payment-auth-requests', {
        body: {
          institutionId: 'sandbox-redirect',
          applicationUserId: 'shopper-1',
          paymentRequest: paymentRequest('f-1'),
        },
      });
      expect(dataOnly.status).toBe(403);
      expect(dataOnly.body.error.issues[0]).toMatchObject({
        type: 'FEATURE_NOT_SUPPORTED',
        parameter: 'INITIATE_DOMESTIC_SINGLE_PAYMENT',
      });
      const international = await http.call('POST', '/payment-auth-requests', {
        body: {
          institutionId: 'sandbox-payments',
          applicationUserId: 'shopper-1',
          paymentRequest: paymentRequest('f-2', 5, { type: 'INTERNATIONAL_PAYMENT' }),
        },
      });
      expect(international.status).toBe(403);
      expect(international.body.error.issues[0].parameter).toBe('INITIATE_INTERNATIONAL_SINGLE_PAYMENT');
    });

    it('keeps payments to their application and refuses a VRP consent on /payments', async () => {
      const { token, payment } = await pay('order-6001', 8);
      const sub = { id: '00000000-0000-4000-8000-0000000000a1', secret: 'sandbox-sub-secret-a' };
      const foreign = await http.call('GET', `/payments/${payment.id}/details`, {
        consent: token,
        auth: sub,
      });
      expect(foreign.status).toBe(401);

      const { token: vrpToken } = await sweepingToken();
      const wrongKind = await http.call('POST', '/payments', {
        consent: vrpToken,
        body: paymentRequest('order-6002'),
      });
      expect(wrongKind.status).toBe(403);
      expect(wrongKind.body.error.issues[0].code).toBe('CONSENT_WRONG_TYPE');
    });
  });

  describe('sweeping VRP', () => {
    it('creates, authorises and shows a sweeping consent in the upstream spec §2.7 shape', async () => {
      const created = await http.call('POST', '/variable-recurring-payments/sweeping/consents', {
        body: sweepingVrpBody(),
      });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({
        institutionId: 'sandbox-payments',
        status: 'AWAITING_AUTHORIZATION',
        controlParameters: { maxAmountPerPayment: { amount: 100, currency: 'GBP' } },
      });
      expect(new URL(created.body.data.authorisationUrl).pathname).toBe(
        `/sandbox/bank/consents/${created.body.data.id}`,
      );
      const id = created.body.data.id as string;
      const token = await authorise(id);

      const details = await http.call('GET', `/variable-recurring-payments/sweeping/consents/${id}`);
      expect(details.status).toBe(200);
      const consent = details.body.data;
      expect(consent).toMatchObject({
        id,
        userUuid: expect.any(String),
        institutionId: 'sandbox-payments',
        status: 'AUTHORIZED',
        consentToken: token,
        state: expect.any(String),
        institutionConsentId: expect.any(String),
        controlParameters: {
          psuAuthenticationMethods: ['SCA_NOT_REQUIRED'],
          maxAmountPerPayment: { amount: 100, currency: 'GBP' },
          periodicLimits: [
            { frequency: 'MONTHLY', alignment: 'CONSENT', totalMaxAmount: { amount: 250, currency: 'GBP' } },
          ],
        },
        initiationDetails: { reference: 'Sweep to savings', payee: PAYEE, payer: PAYER },
      });
      expect(Date.parse(consent.createdAt)).not.toBeNaN();
      expect(Date.parse(consent.authorizedAt)).not.toBeNaN();
      expect([...consent.featureScope].sort()).toEqual(
        [
          'EXISTING_PAYMENTS_DETAILS',
          'EXISTING_PAYMENT_INITIATION_DETAILS',
          'CREATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_SWEEPING',
          'VARIABLE_RECURRING_PAYMENT_FUNDS_CONFIRMATION',
          'INITIATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_SWEEPING',
        ].sort(),
      );
      // No validTo: the mandate does not lapse after the 24 hours a single payment consent gets.
      expect(consent.expiresAt).toBeUndefined();

      const unknown = await http.call(
        'GET',
        `/variable-recurring-payments/sweeping/consents/${crypto.randomUUID()}`,
      );
      expect(unknown.status).toBe(404);
    });

    it('validates sweeping consents and answers the feature error at a data-only institution', async () => {
      const dataOnly = await http.call('POST', '/variable-recurring-payments/sweeping/consents', {
        body: sweepingVrpBody({ institutionId: 'sandbox-redirect' }),
      });
      expect(dataOnly.status).toBe(403);
      expect(dataOnly.body.error.issues[0].parameter).toBe(
        'INITIATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_SWEEPING',
      );

      const cases: [Record<string, unknown>, string][] = [
        [
          sweepingVrpBody({}, { maxAmountPerPayment: { amount: 1.234, currency: 'GBP' } }),
          'controlParameters.maxAmountPerPayment.amount',
        ],
        [
          sweepingVrpBody(
            {},
            {
              periodicLimits: [
                { frequency: 'HOURLY', alignment: 'CONSENT', totalMaxAmount: { amount: 5, currency: 'GBP' } },
              ],
            },
          ),
          'controlParameters.periodicLimits.0.frequency',
        ],
        [
          sweepingVrpBody({}, { psuAuthenticationMethods: ['FINGERPRINT'] }),
          'controlParameters.psuAuthenticationMethods',
        ],
        [
          sweepingVrpBody(
            {},
            {
              periodicLimits: [
                {
                  frequency: 'MONTHLY',
                  alignment: 'CONSENT',
                  totalMaxAmount: { amount: 5, currency: 'EUR' },
                },
              ],
            },
          ),
          'controlParameters.periodicLimits[0].totalMaxAmount.currency',
        ],
        [sweepingVrpBody({ initiationDetails: { reference: 'x' } }), 'initiationDetails.payee'],
      ];
      for (const [body, parameter] of cases) {
        const res = await http.call('POST', '/variable-recurring-payments/sweeping/consents', { body });
        expect(res.status, parameter).toBe(400);
        expect(res.body.error.issues.map((i: { parameter: string }) => i.parameter)).toContain(parameter);
      }
    });

    it('confirms funds up to the payer balance of 5,000.00', async () => {
      const { token } = await sweepingToken();
      const confirm = (amount: number, currency = 'GBP') =>
        http.call('POST', '/variable-recurring-payments/funds-confirmation', {
          consent: token,
          body: { reference: 'Sweep', paymentAmount: { amount, currency } },
        });
      const yes = await confirm(5000);
      expect(yes.status).toBe(201);
      expect(yes.body.data).toMatchObject({
        id: expect.any(String),
        reference: 'Sweep',
        paymentAmount: { amount: 5000, currency: 'GBP' },
        fundsAvailable: { fundsAvailable: true },
      });
      expect(Date.parse(yes.body.data.fundsAvailable.fundsAvailableAt)).not.toBeNaN();
      expect((await confirm(5000.01)).body.data.fundsAvailable.fundsAvailable).toBe(false);
      expect((await confirm(10, 'EUR')).status).toBe(400);
      const noHeader = await http.call('POST', '/variable-recurring-payments/funds-confirmation', {
        body: { paymentAmount: { amount: 1, currency: 'GBP' } },
      });
      expect(noHeader.status).toBe(400);
    });

    it('enforces maxAmountPerPayment and the periodic limit, and opens a new period when the clock moves', async () => {
      const { consentId, token } = await sweepingToken();
      const first = await vrpPayment(token, 'sweep-1', 100);
      expect(first.status).toBe(201);
      expect(first.body.data).toMatchObject({
        paymentIdempotencyId: 'sweep-1',
        status: 'PENDING',
        initiationDetails: { reference: 'Sweep to savings', payee: PAYEE },
        submissionDetails: {
          reference: 'Sweep to savings',
          payee: PAYEE,
          paymentAmount: { amount: 100, currency: 'GBP' },
        },
      });

      const tooBig = await vrpPayment(token, 'sweep-2', 100.01);
      expect(tooBig.status).toBe(400);
      expect(tooBig.body.error.issues[0]).toMatchObject({
        code: 'INVALID_PROPERTY_UNEXPECTED_VALUE',
        parameter: 'paymentAmount.amount',
      });
      expect(tooBig.body.error.issues[0].message).toContain('maxAmountPerPayment');

      expect((await vrpPayment(token, 'sweep-3', 100)).status).toBe(201);
      const overPeriod = await vrpPayment(token, 'sweep-4', 50.01);
      expect(overPeriod.status).toBe(400);
      expect(overPeriod.body.error.issues[0].message).toContain('MONTHLY periodic limit');
      expect((await vrpPayment(token, 'sweep-5', 50)).status).toBe(201);
      expect((await vrpPayment(token, 'sweep-6', 0.01)).status).toBe(400);

      const replay = await vrpPayment(token, 'sweep-1', 100);
      expect(replay.status).toBe(201);
      expect(replay.body.data.id).toBe(first.body.data.id);
      const reused = await vrpPayment(token, 'sweep-1', 99);
      expect(reused.status).toBe(400);

      const wrongMethod = await vrpPayment(token, 'sweep-7', 1, { psuAuthenticationMethod: 'SCA_REQUIRED' });
      expect(wrongMethod.status).toBe(400);
      expect(wrongMethod.body.error.issues[0].parameter).toBe('psuAuthenticationMethod');

      const details = await http.call(
        'GET',
        `/variable-recurring-payments/payments/${first.body.data.id}/details`,
        {
          consent: token,
        },
      );
      expect(details.status).toBe(200);
      expect(details.body.data.status).toBe('COMPLETED');
      expect(paymentEvents(first.body.data.id)).toMatchObject([
        {
          type: 'payment.state.success',
          data: { consentId, paymentType: 'DOMESTIC_VARIABLE_RECURRING_PAYMENT' },
        },
      ]);

      expect((await http.admin('POST', '/clock/advance', { days: 32 })).status).toBe(200);
      const nextPeriod = await vrpPayment(token, 'sweep-8', 100);
      expect(nextPeriod.status).toBe(201);
    });

    it('pro-rates a CALENDAR monthly limit in the first month', async () => {
      const clock = await http.admin('GET', '/clock');
      const now = new Date(clock.body.data.now);
      const daysInMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0)).getUTCDate();
      const remaining = daysInMonth - now.getUTCDate() + 1;
      const limitMinor = Math.floor((31_000 * remaining) / daysInMonth);
      const { token } = await sweepingToken(
        sweepingVrpBody(
          {},
          {
            maxAmountPerPayment: { amount: 400, currency: 'GBP' },
            periodicLimits: [
              {
                frequency: 'MONTHLY',
                alignment: 'CALENDAR',
                totalMaxAmount: { amount: 310, currency: 'GBP' },
              },
            ],
          },
        ),
      );
      const over = await vrpPayment(token, 'cal-1', (limitMinor + 1) / 100);
      expect(over.status).toBe(400);
      expect(over.body.error.issues[0].message).toContain(`${(limitMinor / 100).toFixed(2)} GBP`);
      expect((await vrpPayment(token, 'cal-2', limitMinor / 100)).status).toBe(201);
    });

    it('fails a payment above the payer balance at once (own funds check) and does not count it', async () => {
      const { token } = await sweepingToken(
        sweepingVrpBody(
          {},
          {
            maxAmountPerPayment: { amount: 8000, currency: 'GBP' },
            periodicLimits: [
              { frequency: 'DAILY', alignment: 'CONSENT', totalMaxAmount: { amount: 9000, currency: 'GBP' } },
            ],
          },
        ),
      );
      const res = await vrpPayment(token, 'big-1', 6000);
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        status: 'FAILED',
        statusDetails: { status: 'FAILED', statusReason: 'INSUFFICIENT_FUNDS' },
      });
      expect(paymentEvents(res.body.data.id)).toMatchObject([{ type: 'payment.state.failed' }]);
      expect(pendingEvents(res.body.data.id)).toHaveLength(0);
      await http.call('GET', `/variable-recurring-payments/payments/${res.body.data.id}/details`, {
        consent: token,
      });
      expect(paymentEvents(res.body.data.id)).toHaveLength(1);
      // 6,000 failed, so 5,000 of today's 9,000 still fits.
      expect((await vrpPayment(token, 'big-2', 5000)).status).toBe(201);
    });
  });

  describe('through the hosted bank page', () => {
    const decide = (authorisationUrl: string, decision: 'approve' | 'deny') =>
      http.call('POST', new URL(authorisationUrl).pathname, {
        auth: 'none',
        rawBody: `decision=${decision}`,
        contentType: 'application/x-www-form-urlencoded',
      });

    it('pays with the token the bank page sends to the callback', async () => {
      const created = await http.call('POST', '/payment-auth-requests', {
        body: {
          institutionId: 'sandbox-payments',
          applicationUserId: 'shopper-2',
          callback: 'https://merchant.example/back',
          paymentRequest: paymentRequest('page-1', 15),
        },
      });
      const approved = await decide(created.body.data.authorisationUrl, 'approve');
      expect(approved.status).toBe(302);
      const token = new URL(approved.headers.get('location')!).searchParams.get('consent')!;
      const paid = await http.call('POST', '/payments', {
        consent: token,
        body: paymentRequest('page-1', 15),
      });
      expect(paid.status).toBe(201);
    });

    it('keeps a sweeping consent authorised on the bank page beyond a day, and marks a denied hosted request rejected', async () => {
      const created = await http.call('POST', '/variable-recurring-payments/sweeping/consents', {
        body: sweepingVrpBody(),
      });
      const approved = await decide(created.body.data.authorisationUrl, 'approve');
      const token = new URL(approved.headers.get('location')!).searchParams.get('consent')!;
      expect((await http.admin('POST', '/clock/advance', { days: 3 })).status).toBe(200);
      expect((await vrpPayment(token, 'page-sweep-1', 20)).status).toBe(201);

      const hosted = await http.call('POST', '/hosted/vrp-requests/commercial', { body: hostedVrpBody() });
      expect((await decide(hosted.body.data.hostedUrl, 'deny')).status).toBe(302);
      const request = await http.call('GET', `/hosted/vrp-requests/commercial/${hosted.body.data.requestId}`);
      expect(request.body.data.status).toMatchObject({
        currentStatus: 'rejected',
        errorCode: 'CONSENT_REJECTED',
      });
      expect(request.body.data.result).toBeUndefined();
    });
  });

  describe('hosted commercial VRP', () => {
    it('goes from created to succeed with the consent, which then pays', async () => {
      const created = await http.call('POST', '/hosted/vrp-requests/commercial', { body: hostedVrpBody() });
      expect(created.status).toBe(201);
      const data = created.body.data;
      expect(data).toMatchObject({
        requestId: expect.any(String),
        institutionIdentifiers: { institutionId: 'sandbox-payments', institutionCountryCode: 'GB' },
      });
      expect(Date.parse(data.authorisationExpiresAt) - Date.parse(data.createdAt)).toBe(10 * 60 * 1000);
      const consentId = new URL(data.hostedUrl).pathname.split('/').pop()!;

      const before = await http.call('GET', `/hosted/vrp-requests/commercial/${data.requestId}`);
      expect(before.status).toBe(200);
      expect(before.body.data).toMatchObject({
        requestType: 'vrp',
        requestId: data.requestId,
        applicationId: testConfig().upstream.applicationId,
        userId: expect.any(String),
        applicationUserId: 'hosted-user',
        tppRedirectUrl: 'https://merchant.example/vrp-done',
        status: { currentStatus: 'created', tppNotified: false, qrScanned: false, errorCode: null },
      });
      expect(before.body.data.result).toBeUndefined();

      const token = await authorise(consentId);
      const after = await http.call('GET', `/hosted/vrp-requests/commercial/${data.requestId}`);
      expect(after.body.data.status).toMatchObject({ currentStatus: 'succeed', tppNotified: true });
      expect(after.body.data.result).toEqual({ consentId, consentToken: token });

      const consent = await http.call('GET', `/variable-recurring-payments/commercial/consents/${consentId}`);
      expect(consent.status).toBe(200);
      expect(consent.body.data).toMatchObject({
        status: 'AUTHORIZED',
        controlParameters: {
          maxAmountPerPayment: { amount: 40, currency: 'GBP' },
          periodicLimits: [
            { frequency: 'WEEKLY', alignment: 'CONSENT', totalMaxAmount: { amount: 100, currency: 'GBP' } },
          ],
        },
        riskDetails: { merchantCustomerId: 'customer-7', isPayeePrepopulated: true },
      });
      expect(consent.body.data.featureScope).toContain(
        'CREATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_COMMERCIAL',
      );
      expect(
        (await http.call('GET', `/variable-recurring-payments/sweeping/consents/${consentId}`)).status,
      ).toBe(404);

      const noInteraction = await vrpPayment(token, 'gym-1', 30);
      expect(noInteraction.status).toBe(400);
      expect(noInteraction.body.error.issues[0].parameter).toBe('psuInteractionType');
      const paid = await vrpPayment(token, 'gym-1', 30, { psuInteractionType: 'PSU_NOT_PRESENT' });
      expect(paid.status).toBe(201);
      expect(paid.body.data.submissionDetails.payee).toEqual(PAYEE);
    });

    it('expires a request the PSU does not complete within 10 minutes', async () => {
      const created = await http.call('POST', '/hosted/vrp-requests/commercial', { body: hostedVrpBody() });
      expect((await http.admin('POST', '/clock/advance', { seconds: 601 })).status).toBe(200);
      const res = await http.call('GET', `/hosted/vrp-requests/commercial/${created.body.data.requestId}`);
      expect(res.body.data.status).toMatchObject({ currentStatus: 'expired', errorCode: 'SESSION_EXPIRED' });
      expect(res.body.data.result).toBeUndefined();
    });

    it('validates the request and answers the feature error at a data-only institution', async () => {
      const dataOnly = await http.call('POST', '/hosted/vrp-requests/commercial', {
        body: hostedVrpBody({ institutionIdentifiers: { institutionId: 'sandbox-redirect' } }),
      });
      expect(dataOnly.status).toBe(403);
      expect(dataOnly.body.error.issues[0].parameter).toBe(
        'INITIATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_COMMERCIAL',
      );
      const noRisk = await http.call('POST', '/hosted/vrp-requests/commercial', {
        body: hostedVrpBody({ riskDetails: undefined, redirectUrl: 'not a url' }),
      });
      expect(noRisk.status).toBe(400);
      const parameters = noRisk.body.error.issues.map((i: { parameter: string }) => i.parameter);
      expect(parameters).toEqual(expect.arrayContaining(['riskDetails', 'redirectUrl']));
      const unknown = await http.call('GET', `/hosted/vrp-requests/commercial/${crypto.randomUUID()}`);
      expect(unknown.status).toBe(404);
    });
  });
});
