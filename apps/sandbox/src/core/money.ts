import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * Money is a JSON number on the upstream wire, but the sandbox stores, compares and sums it in integer
 * minor units so that 0.1 + 0.2 never decides whether a limit is exceeded or a balance adds up.
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

/** A finite non-zero number with at most two decimals (10.1 and 10.10 yes, 10.005 no) within the bound. */
export function isMoneyAmount(value: unknown, options: MoneyAmountOptions = {}): value is number {
  const max = options.max ?? MAX_AMOUNT;
  return (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (options.signed ? value !== 0 : value > 0) &&
    Math.abs(value) <= max &&
    // toFixed(2) is exact for any value that has at most two decimals, and differs for every other.
    Number(value.toFixed(2)) === value
  );
}

export function IsMoneyAmount(
  money: MoneyAmountOptions = {},
  options?: ValidationOptions,
): PropertyDecorator {
  const max = money.max ?? MAX_AMOUNT;
  const message = money.signed
    ? `$property must be a non-zero number with at most 2 decimal places, between -${max} and ${max}`
    : `$property must be a positive number with at most 2 decimal places, at most ${max}`;
  return ValidateBy(
    {
      name: 'isMoneyAmount',
      validator: {
        validate: (value: unknown) => isMoneyAmount(value, money),
        defaultMessage: () => message,
      },
    },
    options,
  );
}

/** Integer minor units from a two-decimal JSON number (12.34 → 1234). */
export function toMinor(amount: number): number {
  return Math.round(amount * 100);
}

/** An integer count of minor units divided by 100 is the double nearest the decimal: it prints exactly. */
export function fromMinor(minor: number): number {
  return minor / 100;
}

export function wireAmount(minor: number, currency: string): WireAmount {
  return { amount: fromMinor(minor), currency };
}

/** Rounds a validated request amount to the value the wire will echo (10.1 stays 10.1, never 10.100000001). */
export function normaliseWireAmount(amount: WireAmount): WireAmount {
  return wireAmount(toMinor(amount.amount), amount.currency);
}

/** "12.30 GBP", for messages. */
export function formatMinor(minor: number, currency: string): string {
  return `${fromMinor(minor).toFixed(2)} ${currency}`;
}
