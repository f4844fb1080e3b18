import { Injectable } from '@nestjs/common';
import { formatMinor, SandboxError, toMinor, type WireAmount } from '../core/index.js';
import type { VrpAlignment, VrpFrequency } from './vrp.dto.js';

const DAY_MS = 86_400_000;

export interface VrpPeriod {
  startMs: number;
  endMs: number;
  /** The limit for this period in minor units: pro-rated in a CALENDAR-aligned first period. */
  limitMinor: number;
}

/** Adds months in UTC keeping the anchor's day, clamped to the month's length (31 Jan + 1 → 28/29 Feb). */
function addMonths(anchorMs: number, months: number): number {
  const anchor = new Date(anchorMs);
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(
    year,
    month,
    Math.min(anchor.getUTCDate(), lastDay),
    anchor.getUTCHours(),
    anchor.getUTCMinutes(),
    anchor.getUTCSeconds(),
    anchor.getUTCMilliseconds(),
  );
}

function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Monday 00:00 UTC of the week holding `ms`. */
function startOfUtcWeek(ms: number): number {
  const day = startOfUtcDay(ms);
  const weekday = (new Date(day).getUTCDay() + 6) % 7;
  return day - weekday * DAY_MS;
}

function fixedLengthDays(frequency: VrpFrequency): number | undefined {
  return { DAILY: 1, WEEKLY: 7, EVERY_TWO_WEEKS: 14 }[frequency as string];
}

/**
 * The periods over which VRP periodic limits apply (README: "Sweeping VRP"), all in UTC.
 * CONSENT alignment: periods start at the consent's anchor (validFrom, else its authorisation time) and
 * last 1, 7 or 14 days, or one calendar month or year from the anchor's day and time.
 * CALENDAR alignment: the UTC day; the week from Monday; two-week blocks from the Monday of the anchor's
 * week; the calendar month; the calendar year. The first CALENDAR period is pro-rated to the days left
 * in it, counting the anchor's day, as the upstream documents.
 */
@Injectable()
export class VrpLimitsService {
  period(
    frequency: VrpFrequency,
    alignment: VrpAlignment,
    totalMaxMinor: number,
    anchorMs: number,
    nowMs: number,
  ): VrpPeriod {
    const { startMs, endMs } =
      alignment === 'CONSENT'
        ? this.consentAligned(frequency, anchorMs, nowMs)
        : this.calendarAligned(frequency, anchorMs, nowMs);
    let limitMinor = totalMaxMinor;
    if (alignment === 'CALENDAR' && anchorMs >= startMs && anchorMs < endMs) {
      const totalDays = Math.round((endMs - startMs) / DAY_MS);
      const remainingDays = Math.round((endMs - startOfUtcDay(anchorMs)) / DAY_MS);
      limitMinor = Math.floor((totalMaxMinor * remainingDays) / totalDays);
    }
    return { startMs, endMs, limitMinor };
  }

  private consentAligned(frequency: VrpFrequency, anchorMs: number, nowMs: number) {
    const days = fixedLengthDays(frequency);
    if (days) {
      const length = days * DAY_MS;
      const index = Math.max(0, Math.floor((nowMs - anchorMs) / length));
      return { startMs: anchorMs + index * length, endMs: anchorMs + (index + 1) * length };
    }
    const step = frequency === 'YEARLY' ? 12 : 1;
    const anchor = new Date(anchorMs);
    const now = new Date(nowMs);
    const monthsApart =
      (now.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + now.getUTCMonth() - anchor.getUTCMonth();
    let index = Math.max(0, Math.floor(monthsApart / step));
    while (index > 0 && addMonths(anchorMs, index * step) > nowMs) index -= 1;
    while (addMonths(anchorMs, (index + 1) * step) <= nowMs) index += 1;
    return { startMs: addMonths(anchorMs, index * step), endMs: addMonths(anchorMs, (index + 1) * step) };
  }

  private calendarAligned(frequency: VrpFrequency, anchorMs: number, nowMs: number) {
    const now = new Date(nowMs);
    switch (frequency) {
      case 'DAILY': {
        const startMs = startOfUtcDay(nowMs);
        return { startMs, endMs: startMs + DAY_MS };
      }
      case 'WEEKLY': {
        const startMs = startOfUtcWeek(nowMs);
        return { startMs, endMs: startMs + 7 * DAY_MS };
      }
      case 'EVERY_TWO_WEEKS': {
        const first = startOfUtcWeek(anchorMs);
        const index = Math.max(0, Math.floor((nowMs - first) / (14 * DAY_MS)));
        const startMs = first + index * 14 * DAY_MS;
        return { startMs, endMs: startMs + 14 * DAY_MS };
      }
      case 'MONTHLY':
        return {
          startMs: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1),
          endMs: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1),
        };
      case 'YEARLY':
        return {
          startMs: Date.UTC(now.getUTCFullYear(), 0, 1),
          endMs: Date.UTC(now.getUTCFullYear() + 1, 0, 1),
        };
    }
  }

  /**
   * Refuses a payment (`minor` units of `currency`) above the consent's maxAmountPerPayment, or one that
   * with the payments already `counted` would pass a periodic limit in the period holding `nowMs`.
   */
  checkAmount(
    cp: {
      maxAmountPerPayment: WireAmount;
      periodicLimits: { frequency: VrpFrequency; alignment: VrpAlignment; totalMaxAmount: WireAmount }[];
    },
    counted: readonly { createdAt: string; amountMinor: number }[],
    payment: { minor: number; currency: string },
    anchorMs: number,
    nowMs: number,
  ): void {
    const max = toMinor(cp.maxAmountPerPayment.amount, cp.maxAmountPerPayment.currency);
    if (payment.minor > max) {
      throw SandboxError.invalidProperty(
        'paymentAmount.amount',
        `The payment amount ${formatMinor(payment.minor, payment.currency)} exceeds the consent's maxAmountPerPayment of ${formatMinor(max, cp.maxAmountPerPayment.currency)}`,
      );
    }
    for (const limit of cp.periodicLimits) {
      const currency = limit.totalMaxAmount.currency;
      const total = toMinor(limit.totalMaxAmount.amount, currency);
      const period = this.period(limit.frequency, limit.alignment, total, anchorMs, nowMs);
      const used = counted
        .filter((p) => {
          const at = Date.parse(p.createdAt);
          return at >= period.startMs && at < period.endMs;
        })
        .reduce((sum, p) => sum + p.amountMinor, 0);
      if (used + payment.minor > period.limitMinor) {
        throw SandboxError.invalidProperty(
          'paymentAmount.amount',
          `The payment would exceed the ${limit.frequency} periodic limit (${limit.alignment} alignment) of ${formatMinor(period.limitMinor, currency)} for the period ${new Date(period.startMs).toISOString()} to ${new Date(period.endMs).toISOString()}: ${formatMinor(used, currency)} already used`,
        );
      }
    }
  }

  /** A VRP consent pays in the currency of its limits only. */
  checkCurrency(cp: { maxAmountPerPayment: WireAmount }, currency: string): void {
    const expected = cp.maxAmountPerPayment.currency;
    if (currency !== expected) {
      throw SandboxError.invalidProperty(
        'paymentAmount.currency',
        `The VRP consent is in ${expected}; ${currency} is not allowed`,
      );
    }
  }
}
