/**
 * The decimals of each currency's minor unit (the ISO 4217 exponent) where it is not two: the one table
 * the api's amount rule, the stored-amount rounding and the sandbox's money all read, so that an amount
 * the BFF accepts is one the upstream (whose OpenAPI names ISO 4217 for every currency) takes as well.
 * Funds codes (CLF, UYI, UYW…) are not payment currencies and are left out: every code here is one of
 * PAYMENT_CURRENCIES (currency-tables.spec.ts).
 */
export const CURRENCY_DECIMALS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
};

/** The decimals of `currency`'s minor unit: two for any code the table does not name. */
export const decimalsOf = (currency: string): number =>
  Object.hasOwn(CURRENCY_DECIMALS, currency) ? CURRENCY_DECIMALS[currency] : 2;

/** The most decimals any currency's amount can have (3, KWD's). */
export const MOST_DECIMALS = Math.max(2, ...Object.values(CURRENCY_DECIMALS));
