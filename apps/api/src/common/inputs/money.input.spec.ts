import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAmount } from '#libs/domain/payments';
import { DomainError } from '#libs/errors';
import { createValidationPipe } from '#libs/http';
import { assertProperty } from '#libs/testing';
import { AMOUNT_PATTERN, MoneyInput } from './money.input.js';

const CURRENCIES = ['GBP', 'EUR', 'JPY', 'KWD', 'BHD'];
const pipe = createValidationPipe();

/** What the api's validation says of `amount`: undefined when it passes, else the issue for `amount`. */
async function validated(amount: unknown, currency: string): Promise<string | undefined> {
  try {
    await pipe.transform({ amount, currency }, { type: 'body', metatype: MoneyInput });
    return undefined;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const detail = error.extra.details?.find((d) => d.field === 'amount');
    return detail?.issue;
  }
}

/** What parseAmount says of it: undefined when it parses, else its issue. */
function parsed(amount: unknown, currency: string): string | undefined {
  try {
    parseAmount({ amount: amount as string, currency }, 'x');
    return undefined;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const detail = error.extra.details?.[0];
    return detail?.field === 'x.amount' ? detail.issue : undefined;
  }
}

const EXAMPLES: unknown[] = [
  ...['12.34', '0.01', '0.001', '1', '10', '1.5', '999999999.99', '999999999', '123456789.123'],
  ...['0', '0.0', '0.000', '012.34', '00', '1.2345', '1.', '.5', '1000000000.00', '1234567890123456'],
  ...['1e3', '1E-2', ' 1', '1 ', '-1', '+1', '−1', '', '1,5', '１２.００', '١٢', '12.3400000'],
  ...[12.34, null, undefined, true, {}, []],
];

const anything = fc.oneof(
  fc.constantFrom(...EXAMPLES),
  fc.stringMatching(/^[+-]?\d{0,12}(\.\d{0,6})?([eE]-?\d)?$/),
  fc.string({ maxLength: 16 }),
);

describe('MoneyInput: the one rule for money a request sends', () => {
  it('refuses exactly what parseAmount refuses, with the same issue, in every currency', async () => {
    for (const amount of EXAMPLES) {
      for (const currency of CURRENCIES) {
        expect(await validated(amount, currency), `${JSON.stringify(amount)} ${currency}`).toBe(
          parsed(amount, currency),
        );
      }
    }
    await assertProperty(
      fc.asyncProperty(anything, fc.constantFrom(...CURRENCIES), async (amount, currency) => {
        expect(await validated(amount, currency), `${JSON.stringify(amount)} ${currency}`).toBe(
          parsed(amount, currency),
        );
      }),
      2_000,
    );
  });

  it('states in the document a shape every accepted amount has: the pattern, and 13 characters at most', async () => {
    const documented = new RegExp(AMOUNT_PATTERN);
    for (const amount of EXAMPLES) {
      for (const currency of CURRENCIES) {
        if ((await validated(amount, currency)) !== undefined) continue;
        expect(documented.test(amount as string), `${String(amount)} ${currency}`).toBe(true);
        expect((amount as string).length).toBeLessThanOrEqual(13);
      }
    }
  });
});
