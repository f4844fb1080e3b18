import { ValidateBy, type ValidationOptions } from 'class-validator';
import { decimalsOf } from '#libs/currency';

/**
 * Money is a JSON number on the upstream wire, but the sandbox stores, compares and sums it in integer
 * minor units of its currency (ISO 4217: pence, yen, fils) so that 0.1 + 0.2 never decides whether a limit
 * is exceeded or a balance adds up. The decimals come from the table the BFF's amount rule reads.
 */
export const MAX_AMOUNT = 999_999_999.99;

export interface WireAmount {
  amount: number;
  currency: string;
}

export interface MoneyAmountOptions {
  /** Signed amounts (a debit is negative) still refuse 0: no movement is not a movement. */
  signed?: boolean;
  /** Inclusive bound on the absolute value. */
  max?: number;
}

/** The currency of every fixture account, and so of the control API's transactions. */
export const FIXTURE_CURRENCY = 'GBP';

/**
 * A finite non-zero number with at most its currency's decimals (GBP 10.1 and 10.10 yes, 10.005 no; KWD
 * 10.005 yes; JPY 10 only) within the bound.
 */
export function isMoneyAmount(
  value: unknown,
  currency: string,
  options: MoneyAmountOptions = {},
): value is number {
  const max = options.max ?? MAX_AMOUNT;
  const places = decimalsOf(currency);
  return (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (options.signed ? value !== 0 : value > 0) &&
    Math.abs(value) <= max &&
    // toFixed(n) is exact for any value that has at most n decimals, and differs for every other.
    Number(value.toFixed(places)) === value
  );
}

/**
 * The amount of an object whose `currency` sits beside it (an Amount), or of the fixtures' currency where
 * the object names none (a control-API transaction, in its account's currency: every fixture is GBP).
 */
export function IsMoneyAmount(
  money: MoneyAmountOptions = {},
  options?: ValidationOptions,
): PropertyDecorator {
  const max = money.max ?? MAX_AMOUNT;
  const currencyOf = (object: object) => {
    const currency = (object as { currency?: unknown }).currency;
    return typeof currency === 'string' ? currency : FIXTURE_CURRENCY;
  };
  return ValidateBy(
    {
      name: 'isMoneyAmount',
      validator: {
        validate: (value: unknown, args) => isMoneyAmount(value, currencyOf(args!.object), money),
        defaultMessage: (args) => {
          const currency = currencyOf(args!.object);
          const places = `at most ${decimalsOf(currency)} decimal places for ${currency}`;
          return money.signed
            ? `$property must be a non-zero number with ${places}, between -${max} and ${max}`
            : `$property must be a positive number with ${places}, at most ${max}`;
        },
      },
    },
    options,
  );
}

const scaleOf = (currency: string) => 10 ** decimalsOf(currency);

/** Integer minor units of `currency` from a JSON number of at most its decimals (12.34 GBP → 1234). */
export function toMinor(amount: number, currency: string): number {
  return Math.round(amount * scaleOf(currency));
}

/**
 * An integer count of minor units divided by a power of ten is the double nearest the decimal: it
 * prints exactly (1234 GBP → 12.34, 12345 KWD → 12.345).
 */
export function fromMinor(minor: number, currency: string): number {
  return minor / scaleOf(currency);
}

export function wireAmount(minor: number, currency: string): WireAmount {
  return { amount: fromMinor(minor, currency), currency };
}

/** Rounds a validated request amount to the value the wire will echo (10.1 stays 10.1, never 10.100000001). */
export function normaliseWireAmount(amount: WireAmount): WireAmount {
  return wireAmount(toMinor(amount.amount, amount.currency), amount.currency);
}

/** "12.30 GBP", "1200 JPY", for messages. */
export function formatMinor(minor: number, currency: string): string {
  return `${fromMinor(minor, currency).toFixed(decimalsOf(currency))} ${currency}`;
}
