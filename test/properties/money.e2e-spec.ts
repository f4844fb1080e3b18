import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma, PrismaService } from '#libs/database';
import { amountToApi, decimalFromUpstream, decimalTextToApi, decimalToApi } from '#libs/domain/accounts';
import {
  amountText,
  CURRENCY_DECIMALS,
  decimalsOf,
  MAX_AMOUNT,
  MAX_SIGNIFICANT_DIGITS,
  parseAmount,
  periodLimit,
  wireAmount,
} from '#libs/domain/payments';
import { DomainError } from '#libs/errors';
import {
  assertProperty,
  authorisedVrpConsentRow,
  paymentBodies,
  propertyTimeout,
  uniqueName,
  useStack,
  useTenant,
  VRP_CONTROL_PARAMETERS,
  vrpLimits,
  vrpUser,
} from '../kit/index.js';

/**
 * Money as decimal strings, never through a float we did not check: any amount a merchant may send is
 * parsed, sent to the upstream, stored, and shown back as exactly the same number; any amount the upstream
 * sends is shown as exactly its digits. Amounts the upstream's JSON number could not carry exactly are
 * refused, never rounded.
 */

const CURRENCIES = ['GBP', 'EUR', 'JPY', 'KWD', 'BHD'];

/** Between `min` and `max` digits, every length as likely as any other (the longest are the edge cases). */
const digits = (min: number, max: number) =>
  fc
    .array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max, size: 'max' })
    .map((d) => d.join(''));

/**
 * A plain decimal string (up to 13 integer digits, up to 3 decimals), with lengths spread so amounts past
 * the upstream's maximum, 15 and 16 significant digits, zeros and single cents all come up.
 */
const requestAmount = fc
  .record({
    zero: fc.boolean(),
    lead: fc.integer({ min: 1, max: 9 }),
    rest: digits(0, 12),
    fraction: digits(0, 3),
  })
  .map(
    ({ zero, lead, rest, fraction }) => `${zero ? '0' : `${lead}${rest}`}${fraction ? `.${fraction}` : ''}`,
  );

/**
 * What parseAmount must accept: more than zero, at most the currency's decimals, at most the upstream's
 * maximum and 15 significant digits.
 */
function acceptable(text: string, currency: string): boolean {
  const value = new Prisma.Decimal(text);
  const decimals = text.split('.')[1]?.length ?? 0;
  return (
    value.gt(0) &&
    decimals <= decimalsOf(currency) &&
    value.lte(MAX_AMOUNT) &&
    value.sd() <= MAX_SIGNIFICANT_DIGITS
  );
}

function tryParse(text: string, currency: string): Prisma.Decimal | DomainError {
  try {
    return parseAmount({ amount: text, currency }, 'amount');
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

describe('property: money round-trips exactly', () => {
  it('accepts exactly the amounts within our limits, and sends each to the upstream as exactly itself', async () => {
    await assertProperty(
      fc.property(requestAmount, fc.constantFrom(...CURRENCIES), (text, currency) => {
        const parsed = tryParse(text, currency);
        expect(parsed instanceof Prisma.Decimal, `${text} ${currency}: ${String(parsed)}`).toBe(
          acceptable(text, currency),
        );
        if (!(parsed instanceof Prisma.Decimal)) {
          expect(parsed.code).toBe('VALIDATION_FAILED');
          expect(parsed.extra.details?.[0].field).toBe('amount.amount');
          return;
        }
        expect(parsed.eq(text)).toBe(true);
        // On the wire: the JSON number whose shortest form is the amount. The upstream echoes it back as
        // that number, which we show as the amount again.
        const wire = wireAmount(parsed.toString(), currency).amount;
        expect(new Prisma.Decimal(String(wire)).eq(text), `${text} sent as ${wire}`).toBe(true);
        expect(amountToApi(wire)).toBe(decimalToApi(new Prisma.Decimal(text)));
      }),
      5_000,
    );
  });

  it('never sends an amount the JSON number would change: refused, not rounded', () => {
    const inexact = '9999999999999.999';
    expect(String(Number(inexact))).not.toBe(inexact);
    expect(() => wireAmount(inexact, 'KWD')).toThrow(RangeError);
    const refused = tryParse(inexact, 'KWD');
    expect(refused).toBeInstanceOf(DomainError);
  });

  it('shows any amount the upstream sends (a JSON number) as exactly its digits', async () => {
    const upstreamAmount = fc
      .record({
        negative: fc.boolean(),
        lead: fc.integer({ min: 1, max: 9 }),
        rest: digits(0, 10),
        fraction: digits(0, 4),
      })
      .map(
        ({ negative, lead, rest, fraction }) =>
          `${negative ? '-' : ''}${lead}${rest}${fraction ? `.${fraction}` : ''}`,
      )
      .filter((text) => new Prisma.Decimal(text).sd() <= 15);
    await assertProperty(
      fc.property(upstreamAmount, (text) => {
        const shown = amountToApi(Number(text));
        expect(new Prisma.Decimal(shown).eq(text), `${text} shown as ${shown}`).toBe(true);
        expect(shown).toMatch(/^-?\d+\.\d{2,}$/);
        expect(decimalFromUpstream(Number(text)).eq(text)).toBe(true);
      }),
      5_000,
    );
  });

  describe('through Postgres', () => {
    let pool: pg.Pool;
    beforeAll(() => {
      pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    });
    afterAll(async () => {
      await pool?.end();
    });

    it('stores any accepted amount and shows it back as the same number, with its currency’s decimals', async () => {
      const accepted = fc
        .tuple(requestAmount, fc.constantFrom(...CURRENCIES))
        .filter(([text, currency]) => acceptable(text, currency));
      await assertProperty(
        fc.asyncProperty(fc.array(accepted, { minLength: 1, maxLength: 200 }), async (amounts) => {
          // The payments column, and the expression every payment view and limit message writes it with.
          const { rows } = await pool.query<{ stored: string; shown: string }>({
            text: `SELECT x.amount::numeric(19, 4)::text AS stored,
                ${amountText('x.amount::numeric(19, 4)', 'x.currency')} AS shown
              FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS x(amount, currency, n) ORDER BY x.n`,
            values: [amounts.map(([a]) => a), amounts.map(([, c]) => c)],
          });
          amounts.forEach(([text, currency], i) => {
            const { stored, shown } = rows[i];
            const what = `${text} ${currency}: stored ${stored}, shown ${shown}`;
            const places = decimalsOf(currency);
            expect(new Prisma.Decimal(shown).eq(text), what).toBe(true);
            expect(shown.split('.')[1]?.length ?? 0, what).toBe(places);
            // The same amount written by the other paths that show money: the same number each time.
            expect(decimalTextToApi(stored), what).toBe(decimalToApi(new Prisma.Decimal(text)));
            expect(
              periodLimit(
                { totalMaxAmount: { amount: text } },
                { start: new Date(0), end: new Date(1) },
                2,
                currency,
              ),
              what,
            ).toBe(shown);
          });
        }),
        40,
      );
    });
  });

  describe('over HTTP', () => {
    const stack = useStack();
    const tenant = useTenant(stack);
    let consentId: string;
    let userId: string;

    beforeAll(async () => {
      const user = await vrpUser(stack, tenant, 'money');
      userId = user.id;
      const huge = '9999999999999.999';
      consentId = (
        await authorisedVrpConsentRow(stack, user, {
          bankLimits: VRP_CONTROL_PARAMETERS,
          controlParameters: vrpLimits(huge, huge, 'YEARLY', 'KWD'),
        })
      ).id;
    });

    it(
      'starts a payment at the bank for any amount it accepts, in every currency of the decimals table',
      async () => {
        // The table's currencies and two of two decimals; KWD's thousandths and JPY's whole yen first.
        const currencies = ['GBP', 'EUR', ...Object.keys(CURRENCY_DECIMALS)];
        const accepted = fc
          .tuple(requestAmount, fc.constantFrom(...currencies))
          .filter(([text, currency]) => acceptable(text, currency));
        await assertProperty(
          fc.asyncProperty(accepted, async ([amount, currency]) => {
            const started = await tenant.client.post(
              `/v1/users/${userId}/payments`,
              paymentBodies.single({ amount: { amount, currency } }),
              { headers: { 'idempotency-key': uniqueName('money') } },
            );
            const what = `${amount} ${currency}: ${JSON.stringify(started.body.error ?? {})}`;
            expect(started.status, what).toBe(201);
            expect(new Prisma.Decimal(started.body.data.amount.amount).eq(amount), what).toBe(true);
            expect(started.body.data.amount.currency).toBe(currency);
          }),
          8,
          { examples: [[['12.345', 'KWD']], [['1200', 'JPY']], [['0.001', 'BHD']]] },
        );
      },
      propertyTimeout(60_000),
    );

    it(
      'refuses, before any bank is asked, an amount of 16 significant digits (past the upstream’s maximum too)',
      async () => {
        const sixteen = fc
          .tuple(fc.integer({ min: 1, max: 9 }), digits(12, 12), digits(2, 2), fc.integer({ min: 1, max: 9 }))
          .map(([lead, rest, fraction, last]) => `${lead}${rest}.${fraction}${last}`);
        await assertProperty(
          fc.asyncProperty(sixteen, async (amount) => {
            const paid = await tenant.client.post(
              `/v1/vrp/consents/${consentId}/payments`,
              { amount: { amount, currency: 'KWD' } },
              { headers: { 'idempotency-key': uniqueName('money') } },
            );
            expect([paid.status, paid.body.error?.details?.[0]?.field], amount).toEqual([
              400,
              'amount.amount',
            ]);
            const funds = await tenant.client.post(`/v1/vrp/consents/${consentId}/funds-confirmation`, {
              amount: { amount, currency: 'KWD' },
            });
            expect([funds.status, funds.body.error?.details?.[0]?.field], amount).toEqual([
              400,
              'amount.amount',
            ]);
          }),
          5,
        );
        const stored = await stack.api.app.get(PrismaService).payment.count({ where: { consentId } });
        expect(stored).toBe(0);
      },
      propertyTimeout(30_000),
    );
  });
});
