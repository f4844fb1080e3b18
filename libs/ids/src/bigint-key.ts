/** The largest value of a Postgres `bigint`, the type of our numbered keys (call log ids, stream positions). */
const BIGINT_MAX = 9_223_372_036_854_775_807n;

/**
 * A keyset cursor's key that is a Postgres `bigint` in decimal: digits only, and no more than the type
 * holds, so a cursor past it is the client's mistake (400), not a cast Postgres refuses (500).
 */
export function isBigintKey(value: string): boolean {
  return /^\d{1,19}$/.test(value) && BigInt(value) <= BIGINT_MAX;
}
