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

/**
 * An upstream JSON-number amount as the API's decimal string, without a Decimal per amount: `String(n)`
 * already is the exact decimal (see decimalFromUpstream), so only the trailing zeros to 2 places are
 * added. Exponent forms (below 1e-6, from 1e21) take the Decimal path, which writes them out in full.
 */
export function amountToApi(n: number): string {
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw new TypeError('Upstream amount is not a finite number');
  const text = String(n);
  if (text.includes('e')) return decimalToApi(decimalFromUpstream(n));
  return decimalTextToApi(text);
}

/**
 * A plain decimal string (Postgres `numeric` as node-postgres returns it, or `String(n)` of a double) as
 * the API writes money: at least 2 decimal places, no trailing zeros beyond them ("12.5000" → "12.50",
 * "12.3450" → "12.345", "7" → "7.00"), exactly as decimalToApi writes the same value.
 */
export function decimalTextToApi(text: string): string {
  const dot = text.indexOf('.');
  if (dot === -1) return `${text}.00`;
  let end = text.length;
  while (end - dot - 1 > 2 && text.charCodeAt(end - 1) === 48 /* 0 */) end -= 1;
  const decimals = end - dot - 1;
  return decimals >= 2 ? text.slice(0, end) : `${text.slice(0, end)}${'0'.repeat(2 - decimals)}`;
}
