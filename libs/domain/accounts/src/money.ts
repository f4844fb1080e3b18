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

const [MINUS, DOT, ZERO, NINE] = [...'-.09'].map((c) => c.charCodeAt(0));

/**
 * A JSON number as written in an upstream body (`-35.52`) as the API's decimal string: always what
 * `amountToApi(Number(text))` gives, without the double for the usual case. A plain decimal of at most
 * 15 significant digits is the shortest decimal that reads back as its double, so the double's own
 * digits (written out in full by amountToApi, exponent or not) are the text's, give or take trailing
 * zeros that decimalTextToApi settles anyway. Exponents, longer decimals and zeros (`-0`) take the double.
 */
export function amountTextToApi(text: string): string {
  return isShortPlainDecimal(text) ? decimalTextToApi(text) : amountToApi(Number(text));
}

function isShortPlainDecimal(text: string): boolean {
  let at = text.charCodeAt(0) === MINUS ? 1 : 0;
  let integerDigits = 0;
  let first = -1; // the first and last non-zero digits, for the significant-digit count
  let last = -1;
  let dot = -1;
  for (; at < text.length; at += 1) {
    const c = text.charCodeAt(at);
    if (c === DOT && dot === -1) {
      dot = at;
      continue;
    }
    if (c < ZERO || c > NINE) return false;
    if (dot === -1) integerDigits += 1;
    if (c !== ZERO) {
      if (first === -1) first = at;
      last = at;
    }
  }
  if (first === -1 || integerDigits === 0) return false;
  const significant = last - first + 1 - (dot > first && dot < last ? 1 : 0);
  return significant <= 15;
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
