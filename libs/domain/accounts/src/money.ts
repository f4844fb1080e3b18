import { Prisma } from '#libs/database';

/**
 * An upstream amount (a JSON number) as a Decimal without float arithmetic. `String(n)` is the shortest
 * decimal that reads back as the same double, which is the wire's own digits for any amount a bank sends
 * (≤ 15 significant digits), so "12.34" stays "12.34" where `n * 100` or `toFixed` could drift. Decimal
 * parses that string exactly (exponent forms such as "1e-7" included); Postgres rounds to the column's
 * 4 places. Non-finite values are refused rather than stored as something else.
 */
export function decimalFromUpstream(n: number): Prisma.Decimal {
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw new TypeError('Upstream amount is not a finite number');
  return new Prisma.Decimal(String(n));
}

/** A stored amount as the API's decimal string: fixed notation, never exponent form, trailing zeros kept to 2. */
export function decimalToApi(d: Prisma.Decimal): string {
  return d.decimalPlaces() < 2 ? d.toFixed(2) : d.toFixed();
}
