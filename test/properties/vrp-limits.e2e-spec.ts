import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { Prisma, PrismaService } from '#libs/database';
import {
  currentVrpPeriod,
  NOT_PAID_STATUSES,
  PaymentStateRepository,
  periodLimit,
  VRP_FREQUENCIES,
  VrpConsentsService,
  VrpPaymentsService,
} from '#libs/domain/payments';
import { DomainError, ErrorCode } from '#libs/errors';
import {
  assertProperty,
  authorisedVrpConsentRow,
  dataOf,
  merchantCallerOf,
  onboard,
  propertyTimeout,
  type Tenant,
  uniqueName,
  useStack,
  vrpLimits,
  vrpUser,
} from '../kit/index.js';

/**
 * Issue 24, item 8, as invariants. Under any limits (one to three frequencies, either alignment, the
 * first CALENDAR period pro-rated) and any sequence of payments (some at once, some at a period's last
 * millisecond, its end or just after, some later failed or completed by the bank):
 * - no period of any limit ever holds more than its limit, and no payment is over the per-payment maximum;
 * - the consent's view shows, for each limit, remaining = the period's limit less what the stored payments
 *   of that period that may have moved money add up to (summed here, not by our query);
 * - one payment alone is accepted exactly when it fits what the view showed just before.
 * Time is moved by the `now` the services take (the database's clock otherwise); payments are stored at
 * that time and submitted to the real sandbox, whose own limits are set wide so the BFF's are the ones
 * tested.
 */

const DAY = 86_400_000;
const CENT = new Prisma.Decimal('0.01');

/** An amount in cents, written as a merchant might: "12", "12.3", "12.30". */
const amountText = (cents: number, style: number) => {
  const whole = Math.floor(cents / 100);
  const fraction = String(cents % 100).padStart(2, '0');
  if (fraction === '00' && style === 0) return String(whole);
  if (fraction.endsWith('0') && style === 1) return `${whole}.${fraction[0]}`;
  return `${whole}.${fraction}`;
};

const FREQUENCIES = VRP_FREQUENCIES;

const limitsArb = fc.record({
  maxCents: fc.integer({ min: 100, max: 40_000 }),
  periodic: fc.uniqueArray(
    fc.record({
      frequency: fc.constantFrom(...FREQUENCIES),
      alignment: fc.constantFrom('CONSENT', 'CALENDAR'),
      totalCents: fc.integer({ min: 50, max: 120_000 }),
    }),
    { minLength: 1, maxLength: 3, selector: (l) => l.frequency },
  ),
  /**
   * When the consent's periods start counting: its validFrom, or (without one) its authorisation. In the
   * past, fixed by the seed, so a failure replays; the payments' times follow from it.
   */
  anchor: fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2026, 5, 1) }),
  anchorIsValidFrom: fc.boolean(),
  firstPaymentAfterMs: fc.integer({ min: 0, max: 3 * DAY }),
});

/** Where the next batch of payments happens, from the last one. */
const moveArb = fc.oneof(
  fc.record({ kind: fc.constant('later' as const), ms: fc.integer({ min: 0, max: 600_000 }) }),
  fc.record({ kind: fc.constant('jump' as const), ms: fc.integer({ min: 0, max: 45 * DAY }) }),
  // The last millisecond of a limit's current period, its end (the next period's first instant), or after.
  fc.record({
    kind: fc.constant('edge' as const),
    limit: fc.nat(),
    delta: fc.constantFrom(-1, 0, 1),
  }),
);

const stepArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      move: moveArb,
      // Paid at once; each a millisecond or two apart, so a batch at a period's last millisecond straddles it.
      payments: fc.array(
        fc.record({
          /** Share of the per-payment maximum, in per mille: above 1000 is over it. */
          share: fc.integer({ min: 1, max: 1100 }),
          style: fc.integer({ min: 0, max: 2 }),
          jitterMs: fc.integer({ min: 0, max: 2 }),
        }),
        { minLength: 1, maxLength: 6 },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      payment: fc.nat(),
      status: fc.constantFrom('COMPLETED', 'FAILED', 'DECLINED', 'REJECTED', 'EXPIRED'),
    }),
  },
);

type ViewLimit = {
  frequency: string;
  currentPeriod: { start: string; end: string } | null;
  limitInCurrentPeriod: { amount: string } | null;
  paidInCurrentPeriod: { amount: string } | null;
  remainingInCurrentPeriod: { amount: string } | null;
};

type Stored = { id: string; amount: { amount: string }; status: string; createdAt: string };

describe('property: VRP limits hold under any payments, and the consent shows exactly the headroom left', () => {
  // A long search (and its shrinking) makes far more requests a minute than a merchant is allowed.
  const stack = useStack({ overrides: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  let tenant: Tenant;
  let prisma: PrismaService;
  let user: { id: string; merchantId: string; applicationUserId: string };

  beforeAll(async () => {
    tenant = await onboard(stack);
    prisma = stack.api.app.get(PrismaService);
    user = await vrpUser(stack, tenant, 'vrp-props');
  });

  it(
    'never pays over a limit, and remaining is always the limit less what was paid in the period',
    async () => {
      const caller = merchantCallerOf(tenant);
      const payments = stack.api.app.get(VrpPaymentsService);
      const consents = stack.api.app.get(VrpConsentsService);
      const states = stack.api.app.get(PaymentStateRepository);

      await assertProperty(
        fc.asyncProperty(
          limitsArb,
          fc.array(stepArb, { minLength: 1, maxLength: 8 }),
          async (limits, steps) => {
            const anchor = limits.anchor;
            const validFrom = limits.anchorIsValidFrom ? new Date(anchor).toISOString() : undefined;
            const control = {
              psuAuthenticationMethods: ['SCA_NOT_REQUIRED'],
              maxAmountPerPayment: { amount: amountText(limits.maxCents, 2), currency: 'GBP' },
              periodicLimits: limits.periodic.map((l) => ({
                frequency: l.frequency,
                alignment: l.alignment,
                totalMaxAmount: { amount: amountText(l.totalCents, 2), currency: 'GBP' },
              })),
              ...(validFrom ? { validFrom } : {}),
            };
            // The bank's own limits are wide (and count from now): the limits under test are the BFF's.
            const row = await authorisedVrpConsentRow(stack, user, {
              controlParameters: control,
              bankLimits: vrpLimits(1000, 100_000),
            });
            if (!validFrom) {
              await prisma.consent.update({
                where: { id: row.id },
                data: { authorizedAt: new Date(anchor) },
              });
            }
            const max = new Prisma.Decimal(control.maxAmountPerPayment.amount);

            const stored = async (): Promise<Stored[]> =>
              dataOf<Stored[]>(await tenant.client.get(`/v1/vrp/consents/${row.id}/payments?limit=100`));
            const counted = (all: Stored[]) => all.filter((p) => !NOT_PAID_STATUSES.includes(p.status));
            /** What the stored payments of [start, end) that may have moved money add up to, summed here. */
            const paidIn = (all: Stored[], start: number, end: number) =>
              counted(all)
                .filter((p) => Date.parse(p.createdAt) >= start && Date.parse(p.createdAt) < end)
                .reduce((sum, p) => sum.plus(p.amount.amount), new Prisma.Decimal(0));
            const view = async (at: Date) =>
              (await consents.view(caller, row.id, at)).controlParameters.periodicLimits as ViewLimit[];

            /** The view at `at` against the stored payments: remaining = limit − paid, in the period holding `at`. */
            const checkView = async (at: Date) => {
              const [shown, all] = await Promise.all([view(at), stored()]);
              shown.forEach((l, i) => {
                const what = `${l.frequency} at ${at.toISOString()}`;
                const period = l.currentPeriod!;
                const [start, end] = [Date.parse(period.start), Date.parse(period.end)];
                expect(
                  start <= at.getTime() && at.getTime() < end,
                  `${what}: ${JSON.stringify(period)}`,
                ).toBe(true);
                const limit = control.periodicLimits[i];
                expect(l.limitInCurrentPeriod!.amount, what).toBe(
                  periodLimit(limit, { start: new Date(start), end: new Date(end) }, anchor, 'GBP'),
                );
                const paid = paidIn(all, start, end);
                expect(l.paidInCurrentPeriod!.amount, what).toBe(paid.toFixed(2));
                expect(l.remainingInCurrentPeriod!.amount, what).toBe(
                  new Prisma.Decimal(l.limitInCurrentPeriod!.amount).minus(paid).toFixed(2),
                );
              });
              return shown;
            };

            /** No period of any limit holds more than its limit; no payment is over the maximum. */
            const checkNeverOver = (all: Stored[]) => {
              for (const p of all)
                expect(new Prisma.Decimal(p.amount.amount).lte(max), p.amount.amount).toBe(true);
              control.periodicLimits.forEach((limit) => {
                const periods = new Map<number, { end: number; sum: Prisma.Decimal }>();
                for (const p of counted(all)) {
                  const period = currentVrpPeriod(
                    limit.frequency,
                    limit.alignment,
                    anchor,
                    Date.parse(p.createdAt),
                  )!;
                  const key = period.start.getTime();
                  const entry = periods.get(key) ?? { end: period.end.getTime(), sum: new Prisma.Decimal(0) };
                  periods.set(key, { ...entry, sum: entry.sum.plus(p.amount.amount) });
                }
                for (const [start, { end, sum }] of periods) {
                  const allowed = periodLimit(
                    limit,
                    { start: new Date(start), end: new Date(end) },
                    anchor,
                    'GBP',
                  );
                  expect(
                    sum.lte(allowed),
                    `${limit.frequency} ${new Date(start).toISOString()}: ${sum.toFixed(2)} > ${allowed}`,
                  ).toBe(true);
                }
              });
            };

            let at = anchor + limits.firstPaymentAfterMs;
            const made: string[] = [];
            for (const step of steps) {
              if (step.kind === 'settle') {
                if (made.length === 0) continue;
                await states.applyFinalStatusById(made[step.payment % made.length], {
                  status: step.status,
                  statusDetails: null,
                  reason: 'bank',
                });
                continue;
              }
              const move = step.move;
              if (move.kind === 'edge') {
                const limit = control.periodicLimits[move.limit % control.periodicLimits.length];
                at =
                  currentVrpPeriod(limit.frequency, limit.alignment, anchor, at)!.end.getTime() + move.delta;
              } else {
                at += move.ms;
              }
              const before = await checkView(new Date(at));
              const batch = step.payments.map((p) => ({
                amount: amountText(Math.max(1, Math.round((limits.maxCents * p.share) / 1000)), p.style),
                at: new Date(at + p.jitterMs),
              }));
              const results = await Promise.all(
                batch.map(({ amount, at: when }) =>
                  payments
                    .pay(caller, row.id, { amount, currency: 'GBP' }, uniqueName('prop'), when)
                    .then((payment) => ({ ok: true as const, payment }))
                    .catch((error: unknown) => {
                      if (error instanceof DomainError && error.code === ErrorCode.VRP_LIMIT_EXCEEDED) {
                        return { ok: false as const };
                      }
                      throw error;
                    }),
                ),
              );
              for (const r of results) if (r.ok) made.push(r.payment.id);
              if (batch.length === 1 && batch[0].at.getTime() === at) {
                // Alone, a payment is taken exactly when it fits what the view just showed.
                const amount = new Prisma.Decimal(batch[0].amount);
                const fits =
                  amount.lte(max) && before.every((l) => amount.lte(l.remainingInCurrentPeriod!.amount));
                expect(
                  results[0].ok,
                  `${batch[0].amount} at ${batch[0].at.toISOString()}: ${JSON.stringify(before)}`,
                ).toBe(fits);
              }
              checkNeverOver(await stored());
              await checkView(new Date(at));
            }

            // Over HTTP, at the database's own clock: the view's remaining is what the route lets through.
            const shown = dataOf<{ controlParameters: { periodicLimits: ViewLimit[] } }>(
              await tenant.client.get(`/v1/vrp/consents/${row.id}`),
            ).controlParameters.periodicLimits;
            const all = await stored();
            for (const l of shown) {
              const [start, end] = [Date.parse(l.currentPeriod!.start), Date.parse(l.currentPeriod!.end)];
              expect(l.remainingInCurrentPeriod!.amount).toBe(
                new Prisma.Decimal(l.limitInCurrentPeriod!.amount).minus(paidIn(all, start, end)).toFixed(2),
              );
            }
            const left = Prisma.Decimal.min(
              ...shown.map((l) => new Prisma.Decimal(l.remainingInCurrentPeriod!.amount)),
            );
            const pay = (amount: Prisma.Decimal) =>
              tenant.client.post(
                `/v1/vrp/consents/${row.id}/payments`,
                { amount: { amount: amount.toFixed(2), currency: 'GBP' } },
                { headers: { 'idempotency-key': uniqueName('prop-http') } },
              );
            if (left.plus(CENT).lte(max)) {
              const over = await pay(left.plus(CENT));
              expect([over.status, over.body.error?.code]).toEqual([422, 'VRP_LIMIT_EXCEEDED']);
            }
            if (left.gte(CENT) && left.lte(max)) expect((await pay(left)).status).toBe(201);
            checkNeverOver(await stored());
          },
        ),
        40,
      );
    },
    propertyTimeout(120_000),
  );

  it('divides time into periods without gap or overlap, from the consent’s anchor on', async () => {
    const instant = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2032, 0, 1) });
    await assertProperty(
      fc.property(
        fc.constantFrom(...FREQUENCIES),
        fc.constantFrom('CONSENT', 'CALENDAR'),
        instant,
        fc.integer({ min: 0, max: 3 * 366 * DAY }),
        (frequency, alignment, anchor, after) => {
          const t = anchor + after;
          const period = currentVrpPeriod(frequency, alignment, anchor, t)!;
          const [start, end] = [period.start.getTime(), period.end.getTime()];
          expect(start <= t && t < end, `${new Date(t).toISOString()} in ${JSON.stringify(period)}`).toBe(
            true,
          );
          // Its last millisecond is in it, its end starts the next one: no instant in two periods or none.
          expect(currentVrpPeriod(frequency, alignment, anchor, end - 1)).toEqual(period);
          expect(currentVrpPeriod(frequency, alignment, anchor, end)!.start.getTime()).toBe(end);
          if (start > anchor) {
            expect(currentVrpPeriod(frequency, alignment, anchor, start - 1)!.end.getTime()).toBe(start);
          }
        },
      ),
      2_000,
    );
  });
});
