import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiResponse,
  authorisedVrpConsentRow,
  onboard,
  paymentBodies,
  type Tenant,
  uniqueName,
  useStack,
  vrpLimits,
  vrpUser,
} from './kit/index.js';

/**
 * Issue 37 item 6: every money input and every payment reference is refused with the real reason, by us
 * (400 VALIDATION_FAILED naming the field), before any bank is asked, and the OpenAPI document states
 * the same rules.
 */

/** The upstream's largest amount (what it refuses above, "at most 999999999.99"). */
const MAXIMUM = '999999999.99';
const LIMITS = vrpLimits(999_999_999.99, 999_999_999.99, 'YEARLY');

type Money = { amount: unknown; currency: string };
type VrpConsentBody = ReturnType<typeof paymentBodies.vrpConsent>;
type HostedVrpRequestBody = ReturnType<typeof paymentBodies.hostedVrpRequest>;

/** Each amount of each route: how to send it, where the answer names it, and the status of a success. */
interface AmountRoute {
  name: string;
  field: string;
  ok: number;
  send: (money: Money) => Promise<ApiResponse>;
}

/** Each reference of each route: how to send it (undefined leaves it out), and the status of a success. */
interface ReferenceRoute {
  name: string;
  required: boolean;
  ok: number;
  send: (reference: string | undefined) => Promise<ApiResponse>;
}

/** Refused amounts and what the issue (and the message) must say. */
const REFUSED: [amount: unknown, reason: string][] = [
  ['-1.00', 'no sign'],
  ['+1.00', 'no sign'],
  ['1e2', 'no exponent'],
  ['1E-2', 'no exponent'],
  ['１２.００', 'ASCII digits only'],
  ['١٢.٠٠', 'ASCII digits only'],
  ['012.34', 'no leading zeros'],
  ['1,000.00', 'digits with an optional point'],
  ['1.', 'digits with an optional point'],
  ['', 'digits with an optional point'],
  [12.34, 'must be a string'],
  [null, 'must be a string'],
  ['0.00', 'must be greater than zero'],
  ['0', 'must be greater than zero'],
  ['1.234', 'at most 2 decimals for GBP'],
  ['1234567890123456', `at most ${MAXIMUM}`],
  ['1000000000.00', `at most ${MAXIMUM}`],
  ['999999999.999', 'at most 2 decimals for GBP'],
];

describe('payment inputs: amounts and references refused with the real reason', () => {
  const stack = useStack({ overrides: { RATE_LIMIT_PER_MINUTE: '100000' } });
  let tenant: Tenant;
  let consentId: string;

  const vrpConsent = (controlParameters: VrpConsentBody['controlParameters']) =>
    tenant.client.post(
      `/v1/users/${tenant.userId}/vrp/consents`,
      paymentBodies.vrpConsent({ controlParameters }),
    );
  const hostedVrpRequest = (controlParameters: HostedVrpRequestBody['controlParameters']) =>
    tenant.client.post(
      `/v1/users/${tenant.userId}/hosted/vrp-requests`,
      paymentBodies.hostedVrpRequest({ controlParameters }),
    );

  const amountRoutes: AmountRoute[] = [
    {
      name: 'POST /v1/users/{userId}/payments',
      field: 'amount.amount',
      ok: 201,
      send: (amount) =>
        tenant.client.post(
          `/v1/users/${tenant.userId}/payments`,
          paymentBodies.single({ amount: amount as never }),
          { headers: { 'idempotency-key': uniqueName('amount') } },
        ),
    },
    {
      name: 'POST /v1/users/{userId}/vrp/consents (maxAmountPerPayment)',
      field: 'controlParameters.maxAmountPerPayment.amount',
      ok: 201,
      send: (amount) =>
        vrpConsent({
          maxAmountPerPayment: amount as never,
          periodicLimits: [{ frequency: 'YEARLY', totalMaxAmount: { amount: MAXIMUM, currency: 'GBP' } }],
        }),
    },
    {
      name: 'POST /v1/users/{userId}/vrp/consents (totalMaxAmount)',
      field: 'controlParameters.periodicLimits.0.totalMaxAmount.amount',
      ok: 201,
      send: (amount) =>
        vrpConsent({
          maxAmountPerPayment: { amount: '1.00', currency: 'GBP' },
          periodicLimits: [{ frequency: 'YEARLY', totalMaxAmount: amount as never }],
        }),
    },
    {
      name: 'POST /v1/users/{userId}/hosted/vrp-requests (maxAmountPerPayment)',
      field: 'controlParameters.maxAmountPerPayment.amount',
      ok: 201,
      send: (amount) =>
        hostedVrpRequest({
          maxAmountPerPayment: amount as never,
          periodicLimit: { frequency: 'YEARLY', totalMaxAmount: { amount: MAXIMUM, currency: 'GBP' } },
        }),
    },
    {
      name: 'POST /v1/users/{userId}/hosted/vrp-requests (totalMaxAmount)',
      field: 'controlParameters.periodicLimit.totalMaxAmount.amount',
      ok: 201,
      send: (amount) =>
        hostedVrpRequest({
          maxAmountPerPayment: { amount: '1.00', currency: 'GBP' },
          periodicLimit: { frequency: 'YEARLY', totalMaxAmount: amount as never },
        }),
    },
    {
      name: 'POST /v1/vrp/consents/{consentId}/payments',
      field: 'amount.amount',
      ok: 201,
      send: (amount) =>
        tenant.client.post(
          `/v1/vrp/consents/${consentId}/payments`,
          { amount, reference: 'Sweep' },
          { headers: { 'idempotency-key': uniqueName('amount') } },
        ),
    },
    {
      name: 'POST /v1/vrp/consents/{consentId}/funds-confirmation',
      field: 'amount.amount',
      ok: 200,
      send: (amount) => tenant.client.post(`/v1/vrp/consents/${consentId}/funds-confirmation`, { amount }),
    },
  ];

  const withReference = (body: object, reference: string | undefined) =>
    reference === undefined ? body : { ...body, reference };
  const referenceRoutes: ReferenceRoute[] = [
    {
      name: 'POST /v1/users/{userId}/payments',
      required: true,
      ok: 201,
      send: (reference) => {
        const { reference: _, ...body } = paymentBodies.single();
        return tenant.client.post(`/v1/users/${tenant.userId}/payments`, withReference(body, reference), {
          headers: { 'idempotency-key': uniqueName('reference') },
        });
      },
    },
    {
      name: 'POST /v1/users/{userId}/vrp/consents',
      required: false,
      ok: 201,
      send: (reference) => {
        const { reference: _, ...body } = paymentBodies.vrpConsent();
        return tenant.client.post(`/v1/users/${tenant.userId}/vrp/consents`, withReference(body, reference));
      },
    },
    {
      name: 'POST /v1/users/{userId}/hosted/vrp-requests',
      required: false,
      ok: 201,
      send: (reference) => {
        const { reference: _, ...body } = paymentBodies.hostedVrpRequest();
        return tenant.client.post(
          `/v1/users/${tenant.userId}/hosted/vrp-requests`,
          withReference(body, reference),
        );
      },
    },
    {
      name: 'POST /v1/vrp/consents/{consentId}/payments',
      required: false,
      ok: 201,
      send: (reference) =>
        tenant.client.post(
          `/v1/vrp/consents/${consentId}/payments`,
          withReference({ amount: { amount: '1.00', currency: 'GBP' } }, reference),
          { headers: { 'idempotency-key': uniqueName('reference') } },
        ),
    },
    {
      name: 'POST /v1/vrp/consents/{consentId}/funds-confirmation',
      required: false,
      ok: 200,
      send: (reference) =>
        tenant.client.post(
          `/v1/vrp/consents/${consentId}/funds-confirmation`,
          withReference({ amount: { amount: '1.00', currency: 'GBP' } }, reference),
        ),
    },
  ];

  beforeAll(async () => {
    tenant = await onboard(stack);
    const user = await vrpUser(stack, tenant, 'inputs');
    consentId = (await authorisedVrpConsentRow(stack, user, { controlParameters: LIMITS })).id;
    // The VRP routes act for the consent's user; the single-payment routes for the tenant's.
    tenant = { ...tenant, userId: user.id };
  });

  /** A 400 VALIDATION_FAILED whose detail for `field`, and whose message, say `reason`. */
  const expectRefused = (response: ApiResponse, field: string, reason: string, what: string) => {
    expect([response.status, response.body?.error?.code], what).toEqual([400, 'VALIDATION_FAILED']);
    const details = (response.body.error.details ?? []) as { field: string; issue: string }[];
    expect(details, what).toContainEqual({ field, issue: expect.stringContaining(reason) });
    expect(response.body.error.message, what).toContain(reason);
  };

  it('refuses each malformed, zero, over-precise or too large amount on every route, naming the reason', async () => {
    for (const route of amountRoutes) {
      for (const [amount, reason] of REFUSED) {
        const response = await route.send({ amount, currency: 'GBP' });
        expectRefused(response, route.field, reason, `${route.name}: ${JSON.stringify(amount)}`);
      }
    }
  });

  it('names the currency’s own decimals: none for JPY, three for KWD', async () => {
    const [single] = amountRoutes;
    expectRefused(
      await single.send({ amount: '1.5', currency: 'JPY' }),
      'amount.amount',
      'at most 0 decimals for JPY',
      'JPY',
    );
    expectRefused(
      await single.send({ amount: '1.2345', currency: 'KWD' }),
      'amount.amount',
      'at most 3 decimals for KWD',
      'KWD',
    );
  });

  it('refuses a currency that is no active ISO 4217 payment currency on every route, and states the list', async () => {
    // Not codes at all, and codes that name no money a payment moves: test, none, gold, an SDR, funds.
    for (const route of amountRoutes) {
      for (const currency of ['ABC', 'XXX', 'XTS', 'XAU', 'XDR', 'CHE', 'gbp']) {
        const response = await route.send({ amount: '1.00', currency });
        expectRefused(
          response,
          route.field.replace(/amount$/, 'currency'),
          'ISO 4217',
          `${route.name}: ${currency}`,
        );
      }
    }
    const document = (await stack.anonymous.get('/docs-json')).body as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
    };
    const currency = document.components.schemas.MoneyInput.properties.currency;
    expect(currency.enum).toEqual(expect.arrayContaining(['GBP', 'EUR', 'USD', 'JPY', 'KWD']));
    for (const code of ['XXX', 'XTS', 'XAU', 'ABC']) expect(currency.enum).not.toContain(code);
  });

  it(`accepts the upstream's maximum, ${MAXIMUM}, on every route, and refuses a cent more here`, async () => {
    for (const route of amountRoutes) {
      const accepted = await route.send({ amount: MAXIMUM, currency: 'GBP' });
      expect(accepted.status, `${route.name}: ${JSON.stringify(accepted.body)}`).toBe(route.ok);
      const over = await route.send({ amount: '1000000000.00', currency: 'GBP' });
      expectRefused(over, route.field, `at most ${MAXIMUM}`, route.name);
    }
  });

  it('refuses a reference that is empty, not printable ASCII, or over 18 characters on every payment route', async () => {
    for (const route of referenceRoutes) {
      const cases: [reference: string, reason: string][] = [
        ['', 'must not be empty'],
        ['Café 1234', 'printable ASCII'],
        ['Tab\there', 'printable ASCII'],
        ['Order 🎉', 'printable ASCII'],
        ['r'.repeat(19), 'at most 18 characters'],
      ];
      for (const [reference, reason] of cases) {
        expectRefused(await route.send(reference), 'reference', reason, `${route.name}: ${reference}`);
      }
      const longest = 'Ref ~!@#$%^&*()_+1';
      expect(longest).toHaveLength(18);
      const accepted = await route.send(longest);
      expect(accepted.status, `${route.name}: ${JSON.stringify(accepted.body)}`).toBe(route.ok);
      const without = await route.send(undefined);
      if (route.required) expectRefused(without, 'reference', 'is required', route.name);
      else expect(without.status, route.name).toBe(route.ok);
    }
  });

  describe('the OpenAPI document', () => {
    type Schema = {
      $ref?: string;
      type?: string;
      pattern?: string;
      maxLength?: number;
      minLength?: number;
      description?: string;
      properties?: Record<string, Schema>;
      items?: Schema;
      allOf?: Schema[];
    };
    interface Document {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>
      >;
      components: { schemas: Record<string, Schema> };
    }
    let document: Document;
    beforeAll(async () => {
      document = (await stack.anonymous.get<Document>('/docs-json')).body;
    });
    const resolve = (schema: Schema): Schema =>
      schema.$ref ? document.components.schemas[schema.$ref.split('/').pop()!] : schema;
    /** The request body schema of each POST whose body has, at any depth, a property `name`. */
    const bodiesWith = (test: (name: string, schema: Schema) => boolean) => {
      const found: Record<string, Schema> = {};
      const has = (schema: Schema, seen: Set<Schema>): boolean => {
        const s = resolve(schema);
        if (seen.has(s)) return false;
        seen.add(s);
        return [
          ...Object.entries(s.properties ?? {}).map(([n, p]) => test(n, p) || has(p, seen)),
          ...(s.items ? [has(s.items, seen)] : []),
          ...(s.allOf ?? []).map((a) => has(a, seen)),
        ].some(Boolean);
      };
      for (const [path, methods] of Object.entries(document.paths)) {
        const body = methods.post?.requestBody?.content['application/json']?.schema;
        if (body && has(body, new Set())) found[`POST ${path}`] = resolve(body);
      }
      return found;
    };

    it('states the amount rule on the one money input, which every route that takes an amount uses', () => {
      const amount = document.components.schemas.MoneyInput.properties!.amount;
      expect(amount).toMatchObject({ type: 'string', maxLength: 13 });
      const pattern = new RegExp(amount.pattern!);
      for (const good of ['12.34', '0.01', '1', MAXIMUM, '123456789.123'])
        expect(pattern.test(good), good).toBe(true);
      for (const [bad] of REFUSED.filter(([a]) => typeof a === 'string')) {
        const refusedByShape = !['1.234', '1000000000.00', '999999999.999'].includes(bad as string);
        if (refusedByShape) expect(pattern.test(bad as string), String(bad)).toBe(false);
      }
      for (const said of [
        'digits with an optional point',
        'no sign',
        'no exponent',
        'ASCII digits only',
        'greater than zero',
        'decimals',
        `at most ${MAXIMUM}`,
        'significant digits',
      ]) {
        expect(amount.description, said).toContain(said);
      }
      expect(
        Object.keys(
          bodiesWith((_, s) =>
            [s, ...(s.allOf ?? [])].some((r) => r.$ref === '#/components/schemas/MoneyInput'),
          ),
        ).sort(),
      ).toEqual([
        'POST /v1/users/{userId}/hosted/vrp-requests',
        'POST /v1/users/{userId}/payments',
        'POST /v1/users/{userId}/vrp/consents',
        'POST /v1/vrp/consents/{consentId}/funds-confirmation',
        'POST /v1/vrp/consents/{consentId}/payments',
      ]);
    });

    it('states the reference’s alphabet and length on every payment route', () => {
      const routes = bodiesWith((name) => name === 'reference');
      // The users routes' `reference` is the merchant's user reference, a rule of its own.
      const payments = Object.entries(routes).filter(([route]) => !/^POST \/v1\/users$/.test(route));
      expect(payments.map(([route]) => route).sort()).toEqual([
        'POST /v1/users/{userId}/hosted/vrp-requests',
        'POST /v1/users/{userId}/payments',
        'POST /v1/users/{userId}/vrp/consents',
        'POST /v1/vrp/consents/{consentId}/funds-confirmation',
        'POST /v1/vrp/consents/{consentId}/payments',
      ]);
      for (const [route, body] of payments) {
        const reference = body.properties!.reference;
        expect(reference, route).toMatchObject({ type: 'string', minLength: 1, maxLength: 18 });
        expect(reference.description, route).toContain('printable ASCII');
        expect(reference.description, route).toContain('18');
        const pattern = new RegExp(reference.pattern!);
        expect(pattern.test('Order 1234'), route).toBe(true);
        expect(pattern.test('Café'), route).toBe(false);
      }
    });
  });
});
