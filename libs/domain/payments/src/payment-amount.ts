import { createHash } from 'node:crypto';
import { Prisma } from '#libs/database';
import { DomainError, ErrorCode } from '#libs/errors';

/** Minor units per currency (ISO 4217); anything not listed takes two. */
export const CURRENCY_DECIMALS: Readonly<Record<string, number>> = {
  JPY: 0,
  KRW: 0,
  BHD: 3,
  KWD: 3,
  JOD: 3,
};

export const decimalsOf = (currency: string) => CURRENCY_DECIMALS[currency] ?? 2;

/** `amount` rounded to its currency's minor unit, as text, in SQL: the stored column keeps four places. */
export const amountText = (amount: string, currency: string) =>
  `round(${amount}, CASE ${currency} ${Object.entries(CURRENCY_DECIMALS)
    .map(([code, places]) => `WHEN '${code}' THEN ${places}`)
    .join(' ')} ELSE 2 END)::text`;

export const invalidField = (field: string, issue: string) =>
  new DomainError(ErrorCode.VALIDATION_FAILED, `${field} ${issue}`, { details: [{ field, issue }] });

/**
 * The most significant digits an amount may have: every decimal of at most 15 significant digits is the
 * shortest form of exactly one double, so the upstream's JSON number carries it exactly (16 need not:
 * 9999999999999.999 is sent as 9999999999999.998).
 */
export const MAX_SIGNIFICANT_DIGITS = 15;

/**
 * A money amount as merchants send it: a decimal string, more than zero, with at most the currency's
 * minor units (more is refused, never rounded) and at most {@link MAX_SIGNIFICANT_DIGITS} significant
 * digits. `field` names it in the error.
 */
export function parseAmount(input: { amount: string; currency: string }, field: string): Prisma.Decimal {
  if (!/^\d{1,13}(\.\d{1,6})?$/.test(input.amount)) {
    throw invalidField(`${field}.amount`, 'must be a decimal string such as "12.34"');
  }
  if (!/^[A-Z]{3}$/.test(input.currency)) {
    throw invalidField(`${field}.currency`, 'must be an ISO 4217 code such as "GBP"');
  }
  const decimals = input.amount.split('.')[1]?.length ?? 0;
  if (decimals > decimalsOf(input.currency)) {
    throw invalidField(
      `${field}.amount`,
      `has more decimals than ${input.currency} allows (${decimalsOf(input.currency)}; never rounded)`,
    );
  }
  const amount = new Prisma.Decimal(input.amount);
  if (amount.lte(0)) throw invalidField(`${field}.amount`, 'must be more than zero');
  if (amount.sd() > MAX_SIGNIFICANT_DIGITS) {
    throw invalidField(
      `${field}.amount`,
      `has more than ${MAX_SIGNIFICANT_DIGITS} significant digits (the upstream's JSON number could not carry it exactly)`,
    );
  }
  return amount;
}

/**
 * A decimal amount as the upstream's wire amount, a JSON number (upstream spec §2.6/2.7): the double whose shortest
 * form is that decimal, which `Number()` finds for any amount {@link parseAmount} accepts. Checked, never
 * assumed: an amount the number cannot carry exactly is refused rather than sent as another.
 */
export function wireAmount(amount: string, currency: string): { amount: number; currency: string } {
  const n = Number(amount);
  if (!Number.isFinite(n) || !new Prisma.Decimal(String(n)).eq(new Prisma.Decimal(amount))) {
    throw new RangeError(`The amount ${amount} cannot be sent as an exact JSON number`);
  }
  return { amount: n, currency };
}

/** A payee as merchants send it (upstream spec §2.7): a name and the account's identifications. */
export interface PayeeInput {
  name: string;
  accountIdentifications: { type: string; identification: string }[];
}

/** The payee of a VRP consent's initiation details, or null when it names none. */
export function payeeOf(initiationDetails: unknown): PayeeInput | null {
  const payee = (initiationDetails as { payee?: PayeeInput } | null)?.payee;
  return payee?.name && Array.isArray(payee.accountIdentifications) ? wirePayee(payee) : null;
}

/** The upstream's payee: exactly the fields we were given, nothing a DTO instance carries besides. */
export const wirePayee = (payee: PayeeInput) => ({
  name: payee.name,
  accountIdentifications: payee.accountIdentifications.map((i) => ({
    type: i.type,
    identification: i.identification,
  })),
});

/**
 * The `paymentIdempotencyId` of a merchant's request: derived from its Idempotency-Key, so a retry of
 * the request (whatever became of our idempotency record) is the same payment here and at the bank.
 * At most 35 characters, as the upstream allows.
 */
export function paymentIdempotencyIdFor(merchantId: string, route: string, idempotencyKey: string): string {
  return createHash('sha256').update(`${merchantId}\0${route}\0${idempotencyKey}`).digest('hex').slice(0, 32);
}

/** A payee names each kind of account identification once: two sort codes would leave the bank to guess. */
export function checkPayee(payee: PayeeInput, field: string): void {
  const types = payee.accountIdentifications.map((i) => i.type);
  const twice = types.find((t, i) => types.indexOf(t) !== i);
  if (twice) throw invalidField(`${field}.accountIdentifications`, `names ${twice} twice`);
}
