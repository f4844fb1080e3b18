import { Prisma } from '#libs/database';
import { decimalFromUpstream, decimalToApi } from '#libs/domain/accounts';

/** An upstream JSON-number amount as the API's decimal string, through the string-based Decimal path. */
export function amountToApi(n: number): string {
  return decimalToApi(decimalFromUpstream(n));
}

/**
 * Every numeric `amount` anywhere in an upstream record becomes a decimal string. The upstream puts money
 * in `{ amount, currency }` objects (and a transaction's top-level `amount`), so converting by key catches
 * every money field, including ones a newer upstream adds, without listing them; rates and counts have
 * other names and stay numbers.
 */
export function moneyToStrings<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => moneyToStrings(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    out[key] = key === 'amount' && typeof v === 'number' ? amountToApi(v) : moneyToStrings(v);
  }
  return out as T;
}

/**
 * A decimal string from a request ("12.34") as the JSON number the upstream wants. `Number()` of a
 * decimal with at most 15 significant digits is the double whose shortest form is those same digits, so
 * the wire carries exactly what the caller wrote; the round trip is checked rather than assumed.
 */
export function amountToUpstream(s: string): number {
  const n = Number(s);
  if (!Number.isFinite(n) || !new Prisma.Decimal(String(n)).equals(new Prisma.Decimal(s))) {
    throw new RangeError('Amount cannot be sent as an exact JSON number');
  }
  return n;
}
