import { Prisma } from '#libs/database';
import { decimalsOf } from './payment-amount.js';

const DAY_MS = 86_400_000;

/**
 * The limit of the current period: the whole `totalMaxAmount`, except in a CALENDAR-aligned first period
 * (the one holding the consent's anchor), which is pro-rated to the days left in it, the anchor's day
 * included, rounded down to the currency's minor unit, as the upstream documents. Written with the
 * currency's decimals (`300.00`), as every amount we show.
 */
export function periodLimit(
  limit: { alignment?: string; totalMaxAmount: { amount: number | string } },
  period: { start: Date; end: Date },
  anchorMs: number,
  currency: string,
): string {
  const places = decimalsOf(currency);
  const total = new Prisma.Decimal(String(limit.totalMaxAmount.amount));
  const [start, end] = [period.start.getTime(), period.end.getTime()];
  if (limit.alignment !== 'CALENDAR' || anchorMs < start || anchorMs >= end) return total.toFixed(places);
  const totalDays = Math.round((end - start) / DAY_MS);
  const remainingDays = Math.round((end - Math.floor(anchorMs / DAY_MS) * DAY_MS) / DAY_MS);
  return total
    .mul(remainingDays)
    .div(totalDays)
    .toDecimalPlaces(places, Prisma.Decimal.ROUND_DOWN)
    .toFixed(places);
}
