import { Prisma } from '#libs/database';
import { decimalsOf } from './payment-amount.js';
import { currentVrpPeriod } from './vrp-period.js';

const DAY_MS = 86_400_000;

type Amount = { amount: number | string; currency: string };

/**
 * A consent's VRP control parameters: as we store them (amounts as the merchant wrote them) or as the
 * upstream sends them (amounts as JSON numbers).
 */
export interface VrpControl {
  maxAmountPerPayment?: Amount;
  periodicLimits?: { frequency: string; alignment?: string; totalMaxAmount: Amount }[];
  validFrom?: string;
  validTo?: string;
  psuAuthenticationMethods?: string[];
}

/** One periodic limit in the period that holds a given instant. */
export interface PeriodLimit {
  /** Its place in the consent's `periodicLimits`. */
  index: number;
  /** Which limit, as the merchant sees it (`periodicLimits[0] (MONTHLY)`). */
  name: string;
  frequency: string;
  /** The limit of this period (pro-rated in a first CALENDAR period), written with the currency's decimals. */
  totalMaxAmount: string;
  start: Date;
  end: Date;
}

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

/**
 * Every periodic limit of a consent at `at`: the period holding `at` and that period's limit. The one
 * definition the limit check and the consent's view share. Periods count from `validFrom`, else from the
 * consent's authorisation. A frequency we do not know is left out (nothing is computed rather than
 * guessed); its `index` is then missing from the answer.
 */
export function periodLimitsAt(
  control: VrpControl,
  authorizedAt: Date | null,
  currency: string,
  at: Date,
): PeriodLimit[] {
  const anchor = Date.parse(control.validFrom ?? '') || authorizedAt?.getTime() || at.getTime();
  const limits: PeriodLimit[] = [];
  (control.periodicLimits ?? []).forEach((limit, index) => {
    const period = currentVrpPeriod(limit.frequency, limit.alignment, anchor, at.getTime());
    if (!period) return;
    limits.push({
      index,
      name: `periodicLimits[${index}] (${limit.frequency})`,
      frequency: limit.frequency,
      totalMaxAmount: periodLimit(limit, period, anchor, currency),
      ...period,
    });
  });
  return limits;
}

/** The consent's currency: that of its per-payment maximum, else of its first periodic limit. */
export const vrpCurrency = (control: VrpControl): string | undefined =>
  control.maxAmountPerPayment?.currency ?? control.periodicLimits?.[0]?.totalMaxAmount.currency;
