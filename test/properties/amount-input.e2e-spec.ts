import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAmount } from '#libs/domain/payments';
import { DomainError } from '#libs/errors';
import {
  assertProperty,
  onboard,
  paymentBodies,
  propertyTimeout,
  type Tenant,
  uniqueName,
  useStack,
} from '../kit/index.js';

/**
 * The amount rule on the real stack: whatever a merchant sends as an amount, the api never fails (no
 * 5xx), accepts exactly what `parseAmount` accepts, and refuses everything else with 400 naming one of
 * the documented reasons (docs/api-guide.md, Payments; the OpenAPI document's MoneyInput).
 */

/** Every reason an amount may be refused for, as `details[].issue` says it. */
const REASONS: RegExp[] = [
  /^must be a string such as "12\.34", never a JSON number$/,
  /^must be a plain decimal, digits with an optional point \(e\.g\. 12\.34\)(: (no sign|no exponent|ASCII digits only|no leading zeros|no spaces|digits on both sides of the point))?$/,
  /^must be greater than zero$/,
  /^must have at most [0-3] decimals for [A-Z]{3} \(never rounded\)$/,
  /^must be at most 999999999\.99 \(the upstream's maximum\)$/,
  /^must have at most 15 significant digits/,
];

// Currencies the sandbox bank pays in with all of their decimals (it takes at most two).
const CURRENCIES = ['GBP', 'EUR', 'JPY'];

const digitString = (min: number, max: number) =>
  fc
    .array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max, size: 'max' })
    .map((d) => d.join(''));

/** Unicode decimal digits of other scripts: full-width, Arabic-Indic, Devanagari, mathematical bold. */
const SCRIPTS = [0xff10, 0x0660, 0x0966, 0x1d7ce];
const inScript = (text: string, zero: number) =>
  text.replace(/\d/g, (d) => String.fromCodePoint(zero + Number(d)));

/** Near the maximum: 999999999.99 give or take a few cents, written with 0 to 6 decimals. */
const nearMaximum = fc
  .record({ cents: fc.bigInt({ min: 99_999_999_990n, max: 100_000_000_010n }), places: fc.nat(6) })
  .map(({ cents, places }) => {
    const whole = cents / 100n;
    const fraction = String(cents % 100n).padStart(2, '0');
    return places <= 2
      ? `${whole}${places ? `.${fraction.slice(0, places)}` : ''}`
      : `${whole}.${fraction}${'0'.repeat(places - 2)}`;
  });

/** `arbitrary`'s value about once in `n`, else undefined. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, n: number) =>
  fc.oneof({ weight: n - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

/** Amounts as a merchant might write them, well or badly. */
const amountText = fc
  .record({
    sign: fc.constantFrom('', '', '', '', '', '-', '+', '\u2212'),
    whole: fc.oneof(
      digitString(0, 3),
      digitString(1, 18),
      fc.constantFrom('0', '00', '999999999', '1000000000'),
    ),
    fraction: fc.option(digitString(0, 6), { nil: undefined }),
    exponent: sometimes(
      fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '-', '+'), digitString(1, 2)),
      6,
    ),
    script: sometimes(fc.constantFrom(...SCRIPTS), 6),
    space: sometimes(fc.constantFrom(' ', '\t', '\u00a0'), 10),
  })
  .map(({ sign, whole, fraction, exponent, script, space }) => {
    const plain = `${sign}${whole}${fraction === undefined ? '' : `.${fraction}`}${exponent ? exponent.join('') : ''}`;
    return `${space ?? ''}${script === undefined ? plain : inScript(plain, script)}`;
  });

/** Plain decimals: zero or up to 11 digits, with 0 to 4 decimals (the currency's, or one too many). */
const plainDecimal = fc
  .record({ lead: fc.nat(9), rest: digitString(0, 10), fraction: fc.option(digitString(1, 4)) })
  .map(
    ({ lead, rest, fraction }) => `${lead === 0 ? '0' : `${lead}${rest}`}${fraction ? `.${fraction}` : ''}`,
  );

const anyAmount: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: amountText },
  { weight: 4, arbitrary: plainDecimal },
  { weight: 2, arbitrary: nearMaximum },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(12.34, 0, 1e21, null, true, [], {}, '1.00 ') },
);

/** parseAmount's verdict: the amount, or the issue it refuses it with. */
function verdict(amount: unknown, currency: string): { accepted: true } | { accepted: false; issue: string } {
  try {
    parseAmount({ amount: amount as string, currency }, 'amount');
    return { accepted: true };
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { accepted: false, issue: error.extra.details![0].issue };
  }
}

describe('property: an amount is accepted exactly when parseAmount accepts it, and refused for a stated reason', () => {
  const stack = useStack({ overrides: { RATE_LIMIT_PER_MINUTE: '100000' } });
  let tenant: Tenant;

  beforeAll(async () => {
    tenant = await onboard(stack);
  });

  it(
    'POST /v1/users/{userId}/payments: never a 5xx; 201 ⇔ parseAmount accepts; else 400 with its issue',
    async () => {
      await assertProperty(
        fc.asyncProperty(anyAmount, fc.constantFrom(...CURRENCIES), async (amount, currency) => {
          const what = `${JSON.stringify(amount)} ${currency}`;
          const response = await tenant.client.post(
            `/v1/users/${tenant.userId}/payments`,
            paymentBodies.single({ amount: { amount, currency } as never }),
            { headers: { 'idempotency-key': uniqueName('amount') } },
          );
          expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBeLessThan(500);
          const expected = verdict(amount, currency);
          if (expected.accepted) {
            expect(response.status, `${what}: ${JSON.stringify(response.body)}`).toBe(201);
            return;
          }
          expect([response.status, response.body.error?.code], what).toEqual([400, 'VALIDATION_FAILED']);
          expect(response.body.error.details, what).toEqual([
            { field: 'amount.amount', issue: expected.issue },
          ]);
          expect(response.body.error.message, what).toBe(`amount.amount ${expected.issue}`);
          expect(expected.issue, what).toSatisfy((issue: string) => REASONS.some((r) => r.test(issue)));
        }),
        150,
      );
    },
    propertyTimeout(90_000),
  );
});
