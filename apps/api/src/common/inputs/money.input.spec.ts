import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { AMOUNT_PATTERN, MoneyInput } from './money.input.js';

const AMOUNTS = [
  ...['12.34', '0.01', '0.001', '1', '10', '1.5', '1234567890123', '1234567890123.123', '9999999999999.999'],
  ...[
    '0',
    '0.0',
    '0.000',
    '012.34',
    '00',
    '1.2345',
    '1.',
    '.5',
    '12345678901234',
    '1e3',
    ' 1',
    '-1',
    '',
    '1,5',
  ],
];

describe('MoneyInput: the one rule for money a request sends', () => {
  it('states in the document exactly the amounts it accepts', () => {
    const documented = new RegExp(AMOUNT_PATTERN);
    for (const amount of AMOUNTS) {
      const errors = validateSync(plainToInstance(MoneyInput, { amount, currency: 'GBP' }));
      expect(errors.length === 0, amount).toBe(documented.test(amount));
    }
  });
});
