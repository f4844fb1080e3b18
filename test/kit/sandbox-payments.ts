/** Request bodies of the sandbox's payment routes, shared by the payment and durable-state tests. */

export const PAYEE = {
  name: 'Jane Merchant',
  accountIdentifications: [
    { type: 'SORT_CODE', identification: '401016' },
    { type: 'ACCOUNT_NUMBER', identification: '71234567' },
  ],
};

export const PAYER = {
  name: 'John Payer',
  accountIdentifications: [
    { type: 'SORT_CODE', identification: '200000' },
    { type: 'ACCOUNT_NUMBER', identification: '55779911' },
  ],
};

/** A sweeping VRP consent the sandbox grants; `controlOverrides` replace single control parameters. */
export function sweepingVrpBody(
  overrides: Record<string, unknown> = {},
  controlOverrides: Record<string, unknown> = {},
) {
  return {
    institutionId: 'sandbox-payments',
    applicationUserId: 'vrp-user',
    callback: 'https://merchant.example/callback',
    controlParameters: {
      psuAuthenticationMethods: ['SCA_NOT_REQUIRED'],
      maxAmountPerPayment: { amount: 100, currency: 'GBP' },
      periodicLimits: [
        { frequency: 'MONTHLY', alignment: 'CONSENT', totalMaxAmount: { amount: 250, currency: 'GBP' } },
      ],
      ...controlOverrides,
    },
    initiationDetails: { reference: 'Sweep to savings', payee: PAYEE, payer: PAYER },
    ...overrides,
  };
}

/** A commercial hosted VRP request the sandbox accepts at its payments bank. */
export function hostedVrpBody(overrides: Record<string, unknown> = {}) {
  return {
    applicationUserId: 'hosted-user',
    institutionIdentifiers: { institutionId: 'sandbox-payments', institutionCountryCode: 'GB' },
    controlParameters: {
      maxAmountPerPayment: { amount: 40, currency: 'GBP' },
      periodicLimit: { frequency: 'WEEKLY', totalMaxAmount: { amount: 100, currency: 'GBP' } },
    },
    initiationDetails: { reference: 'Gym membership', payee: PAYEE },
    redirectUrl: 'https://merchant.example/vrp-done',
    riskDetails: {
      paymentContextCode: 'BillingGoodsAndServicesInArrears',
      paymentPurposeCode: 'SUBS',
      categoryPurposeCode: 'CASH',
      merchantCustomerId: 'customer-7',
      isPayeePrepopulated: true,
    },
    ...overrides,
  };
}

export function paymentRequest(
  paymentIdempotencyId: string,
  amount = 10.5,
  overrides: Record<string, unknown> = {},
) {
  return {
    paymentIdempotencyId,
    type: 'DOMESTIC_PAYMENT',
    reference: 'Invoice 42',
    amount: { amount, currency: 'GBP' },
    payee: PAYEE,
    ...overrides,
  };
}
