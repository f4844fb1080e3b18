import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * Money is a JSON number on the upstream wire, but the sandbox compares and sums it in integer minor
 * units so that 0.1 + 0.2 never decides whether a VRP limit is exceeded.
 */
export const MAX_AMOUNT = 999_999_999.99;

export interface WireAmount {
  amount: number;
  currency: string;
}

/** True for a finite positive number with at most two decimals (10.1 and 10.10 yes, 10.005 no). */
export function isMoneyAmount(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value > 0 &&
    value <= MAX_AMOUNT &&
    // toFixed(2) is exact for any value that has at most two decimals, and differs for every other.
    Number(value.toFixed(2)) === value
  );
}

export function IsMoneyAmount(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isMoneyAmount',
      validator: {
        validate: (value: unknown) => isMoneyAmount(value),
        defaultMessage: () =>
          `$property must be a positive number with at most 2 decimal places, at most ${MAX_AMOUNT}`,
      },
    },
    options,
  );
}

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

/** "12.30 GBP", for messages. */
export function formatMinor(minor: number, currency: string): string {
  return `${(minor / 100).toFixed(2)} ${currency}`;
}
