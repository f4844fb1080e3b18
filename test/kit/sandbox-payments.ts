/** Request bodies of the sandbox's payment routes, shared by the payment and durable-state tests. */

export const PAYEE = {
  name: 'Jane Merchant',
  accountIdentifications: [
    { type: 'SORT_CODE', identification: '401016' },
    { type: 'ACCOUNT_NUMBER', identification: '71234567' },
  ],
};

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
