import { expect } from 'vitest';
import { tenantNamedByOperator } from '#libs/context';
import { PrismaService } from '#libs/database';
import { UserRepository } from '#libs/domain/users';
import type { CreateSinglePaymentInput } from '../../apps/api/src/payments/inputs/create-single-payment.input.js';
import type { CreateHostedVrpRequestInput } from '../../apps/api/src/vrp/inputs/create-hosted-vrp-request.input.js';
import type { CreateVrpConsentInput } from '../../apps/api/src/vrp/inputs/create-vrp-consent.input.js';
import { dataOf } from './api-client.js';
import type { Stack, Tenant } from './api-kit.js';
import { authorisedSandboxVrpConsent, decideAtBank } from './bank-consents.js';
import { createVrpConsentRow, testPayee, uniqueName } from './factories.js';

/** Payment bodies typed against the DTOs the routes validate with, and what payment tests share. */

export const REDIRECT_URL = 'https://app.merchant.example/pay/done';

export const payee = testPayee;

export const paymentBodies = {
  single: (overrides: Partial<CreateSinglePaymentInput> = {}) =>
    ({
      institutionId: 'sandbox-payments',
      amount: { amount: '12.34', currency: 'GBP' },
      payee: payee(),
      reference: 'Order 1234',
      redirectUrl: REDIRECT_URL,
      ...overrides,
    }) satisfies CreateSinglePaymentInput,
  vrpConsent: (overrides: Partial<CreateVrpConsentInput> = {}) =>
    ({
      institutionId: 'sandbox-payments',
      payee: payee(),
      reference: 'Sweep',
      redirectUrl: REDIRECT_URL,
      controlParameters: {
        maxAmountPerPayment: { amount: '100.00', currency: 'GBP' },
        periodicLimits: [
          {
            frequency: 'MONTHLY',
            alignment: 'CONSENT',
            totalMaxAmount: { amount: '30.00', currency: 'GBP' },
          },
        ],
      },
      ...overrides,
    }) satisfies CreateVrpConsentInput,
  hostedVrpRequest: (overrides: Partial<CreateHostedVrpRequestInput> = {}) =>
    ({
      institutionId: 'sandbox-payments',
      payee: payee(),
      reference: 'Subscription',
      redirectUrl: REDIRECT_URL,
      controlParameters: {
        maxAmountPerPayment: { amount: '50.00', currency: 'GBP' },
        periodicLimit: { frequency: 'MONTHLY', totalMaxAmount: { amount: '80.00', currency: 'GBP' } },
      },
      riskDetails: {
        paymentContextCode: 'BillingGoodsAndServicesInArrears',
        paymentPurposeCode: 'GDSV',
        categoryPurposeCode: 'SUPP',
      },
      ...overrides,
    }) satisfies CreateHostedVrpRequestInput,
};

/** The user at the sandbox bank's page, then back through our callback: where the browser lands. */
export async function atBank(
  stack: Stack,
  authorisationUrl: string,
  decision: 'approve' | 'deny' = 'approve',
) {
  const back = await decideAtBank(
    { apiUrl: stack.api.url, sandboxUrl: stack.sandbox.url },
    authorisationUrl,
    decision,
  );
  return { ...back, query: Object.fromEntries(back.location.searchParams) };
}

/**
 * A single payment of one of the tenant's users, approved at the sandbox bank: created, and the user back
 * through our callback with the payment PENDING (the bank settles it later). `key` names its idempotency key.
 */
export async function paymentApprovedAtBank(stack: Stack, tenant: Tenant, userId: string, key: string) {
  const created = dataOf<{ id: string; authorisationUrl: string }>(
    await tenant.client.post(`/v1/users/${userId}/payments`, paymentBodies.single(), {
      headers: { 'idempotency-key': uniqueName(key) },
    }),
    201,
  );
  const back = await atBank(stack, created.authorisationUrl);
  expect(back.query).toMatchObject({ paymentId: created.id, status: 'PENDING' });
  return created;
}

/** The payment events recorded for one of our payments, oldest first. */
export async function paymentEvents(
  stack: Stack,
  paymentId: string,
): Promise<{ type: string; status: string }[]> {
  return stack.api.app.get(PrismaService).$queryRaw<{ type: string; status: string }[]>`
    SELECT type::text AS type, data->>'status' AS status FROM merchant_events
    WHERE data->>'paymentId' = ${paymentId} ORDER BY seq`;
}

/** Sweeping VRP limits without SCA: a per-payment maximum and one periodic limit counted from the consent. */
export const vrpLimits = (
  perPayment: number | string,
  total: number | string,
  frequency = 'MONTHLY',
  currency = 'GBP',
) => ({
  psuAuthenticationMethods: ['SCA_NOT_REQUIRED'],
  maxAmountPerPayment: { amount: perPayment, currency },
  periodicLimits: [{ frequency, alignment: 'CONSENT', totalMaxAmount: { amount: total, currency } }],
});

/** A user of the tenant's, as the operator creates one: with the application user id a VRP consent names. */
export function vrpUser(
  stack: Stack,
  tenant: Tenant,
  label: string,
): Promise<{ id: string; merchantId: string; applicationUserId: string }> {
  return stack.api.app
    .get(UserRepository)
    .create(tenantNamedByOperator({ kind: 'operator' }, tenant.merchant.merchant.id), {
      reference: uniqueName(label),
    });
}

/**
 * A sweeping VRP consent of `user`, authorised at the sandbox bank under `bankLimits` and stored here
 * under `controlParameters` (the limits this service enforces): where the two differ, a test sets the
 * bank's wider so that ours are the ones it meets.
 */
export async function authorisedVrpConsentRow(
  stack: Stack,
  user: { id: string; merchantId: string; applicationUserId: string },
  limits: { controlParameters: object; bankLimits?: object; initiationDetails?: unknown },
) {
  const upstream = await authorisedSandboxVrpConsent(
    stack.sandbox.url,
    stack.api.config,
    user.applicationUserId,
    undefined,
    limits.bankLimits ?? limits.controlParameters,
  );
  return createVrpConsentRow(stack.api.app.get(PrismaService), stack.api.config, user, {
    ...upstream,
    controlParameters: limits.controlParameters,
    ...(limits.initiationDetails === undefined ? {} : { initiationDetails: limits.initiationDetails }),
  });
}
