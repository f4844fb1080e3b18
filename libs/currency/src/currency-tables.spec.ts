import { describe, expect, it } from 'vitest';
import { CURRENCY_DECIMALS } from './currency-decimals.js';
import { PAYMENT_CURRENCIES } from './payment-currencies.js';

describe('the currency tables', () => {
  it('give decimals only for currencies a payment may be in', () => {
    const strays = Object.keys(CURRENCY_DECIMALS).filter((code) => !PAYMENT_CURRENCIES.includes(code));
    expect(strays).toEqual([]);
  });
});
