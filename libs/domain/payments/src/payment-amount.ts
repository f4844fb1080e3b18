import { createHash } from 'node:crypto';
import { CURRENCY_DECIMALS, decimalsOf, MOST_DECIMALS } from '#libs/currency';
import { Prisma } from '#libs/database';
import { DomainError, ErrorCode } from '#libs/errors';

export { CURRENCY_DECIMALS, decimalsOf, MOST_DECIMALS };

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
 * 9999999999999.999 is sent as 9999999999999.998). Below {@link MAX_AMOUNT} no amount has more than 12;
 * the check stays so that a larger maximum could never send another number than the one asked for.
 */
export const MAX_SIGNIFICANT_DIGITS = 15;

/** The largest amount the upstream takes (it refuses more with "at most 999999999.99"): refused here first. */
export const MAX_AMOUNT = '999999999.99';

/** The most digits before the point (9) an accepted amount can have; MOST_DECIMALS after it. */
export const MAX_WHOLE_DIGITS = MAX_AMOUNT.indexOf('.');

/** The most characters an accepted amount can have: 13 (999999999.999 is one too many, yet as long). */
export const AMOUNT_MAX_LENGTH = MAX_WHOLE_DIGITS + 1 + MOST_DECIMALS;

const CURRENCY = /^[A-Z]{3}$/;

/** What an amount must look like, as the issues name it. */
export const AMOUNT_FORM = 'a plain decimal, digits with an optional point (e.g. 12.34)';

/**
 * Every reason an amount is refused for, in the order they are checked; `details[].issue` is one of
 * these (docs/api-guide.md, Payments).
 */
export const AMOUNT_ISSUES = {
  notString: 'must be a string such as "12.34", never a JSON number',
  form: (why?: string) => `must be ${AMOUNT_FORM}${why ? `: ${why}` : ''}`,
  notPositive: 'must be greater than zero',
  decimals: (currency: string) =>
    `must have at most ${decimalsOf(currency)} decimals for ${CURRENCY.test(currency) ? currency : 'its currency'} (never rounded)`,
  tooLarge: `must be at most ${MAX_AMOUNT} (the upstream's maximum)`,
  significantDigits: `must have at most ${MAX_SIGNIFICANT_DIGITS} significant digits (what the upstream's JSON number carries exactly)`,
} as const;

const PLAIN_DECIMAL = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** Why `text` is not a plain decimal, in the words the issue uses: the first telling reason. */
function formIssue(text: string): string {
  if (/^\s|\s$/.test(text) || /\d\s+\d/.test(text)) return AMOUNT_ISSUES.form('no spaces');
  // ASCII and Unicode minus and plus signs alike.
  if (/^[+\-\u2212\uFE62\uFE63\uFF0B\uFF0D]/.test(text)) return AMOUNT_ISSUES.form('no sign');
  if (/[^\P{Nd}0-9]/u.test(text)) return AMOUNT_ISSUES.form('ASCII digits only');
  if (/^(?:\d+\.?\d*|\.\d+)[eE][+-]?\d+$/.test(text)) return AMOUNT_ISSUES.form('no exponent');
  if (/^0\d/.test(text) && /^\d+(?:\.\d+)?$/.test(text)) return AMOUNT_ISSUES.form('no leading zeros');
  if (/^(?:\d*\.\d*)$/.test(text) && text !== '.')
    return AMOUNT_ISSUES.form('digits on both sides of the point');
  return AMOUNT_ISSUES.form();
}

/**
 * The one amount rule, for the api's validation and {@link parseAmount} alike: undefined when `amount` is
 * an amount of `currency`, else the issue that refuses it. Checked in this order: a string, a plain
 * decimal (no sign, no exponent, ASCII digits, no leading zeros), greater than zero, at most the currency's
 * decimals (never rounded), at most {@link MAX_AMOUNT}, at most {@link MAX_SIGNIFICANT_DIGITS} significant
 * digits.
 */
export function amountIssue(amount: unknown, currency: unknown): string | undefined {
  if (typeof amount !== 'string') return AMOUNT_ISSUES.notString;
  if (!PLAIN_DECIMAL.test(amount)) return formIssue(amount);
  if (!/[1-9]/.test(amount)) return AMOUNT_ISSUES.notPositive;
  const [whole, fraction = ''] = amount.split('.');
  const code = typeof currency === 'string' ? currency : '';
  if (fraction.length > decimalsOf(code)) return AMOUNT_ISSUES.decimals(code);
  // Compared as text first: a plain decimal of more whole digits is over the maximum however long.
  if (whole.length > MAX_WHOLE_DIGITS || new Prisma.Decimal(amount).gt(MAX_AMOUNT)) {
    return AMOUNT_ISSUES.tooLarge;
  }
  if (new Prisma.Decimal(amount).sd() > MAX_SIGNIFICANT_DIGITS) return AMOUNT_ISSUES.significantDigits;
  return undefined;
}

/**
 * A money amount as merchants send it, by the one rule of {@link amountIssue} (what the api's validation
 * lets through is exactly what this parses), with an ISO 4217 currency. `field` names it in the error.
 */
export function parseAmount(input: { amount: string; currency: string }, field: string): Prisma.Decimal {
  const issue = amountIssue(input.amount, input.currency);
  if (issue) throw invalidField(`${field}.amount`, issue);
  if (typeof input.currency !== 'string' || !CURRENCY.test(input.currency)) {
    throw invalidField(`${field}.currency`, 'must be an ISO 4217 code such as "GBP"');
  }
  return new Prisma.Decimal(input.amount);
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
