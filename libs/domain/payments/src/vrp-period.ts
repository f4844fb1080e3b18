const DAY_MS = 86_400_000;

const startOfUtcDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  const target = new Date(
    Date.UTC(
      d.getUTCFullYear(),
      d.getUTCMonth() + months,
      1,
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds(),
    ),
  );
  // Clamp to the month's last day: a consent anchored on the 31st renews on the 30th (or 28th) of shorter months.
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.getTime();
}

const FIXED_DAYS: Readonly<Record<string, number>> = {
  DAILY: 1,
  WEEKLY: 7,
  FORTNIGHTLY: 14,
  EVERY_TWO_WEEKS: 14,
};
const MONTHS: Readonly<Record<string, number>> = {
  MONTHLY: 1,
  QUARTERLY: 3,
  HALF_YEARLY: 6,
  YEARLY: 12,
};

/**
 * The current period of a VRP periodic limit, in UTC, as the upstream defines it: CONSENT alignment counts
 * whole periods from the consent's anchor (validFrom, else its authorisation); CALENDAR alignment uses the
 * day, the week from Monday, fortnights from the anchor's Monday, and calendar months, half-years and years.
 * Undefined for a frequency we do not know (the amount paid is then not computed rather than guessed).
 */
export function currentVrpPeriod(
  frequency: string,
  alignment: string | undefined,
  anchorMs: number,
  nowMs: number,
): { start: Date; end: Date } | undefined {
  const days = FIXED_DAYS[frequency];
  const months = MONTHS[frequency];
  if (days === undefined && months === undefined) return undefined;
  if (alignment === 'CALENDAR') {
    if (days === 1) return span(startOfUtcDay(nowMs), startOfUtcDay(nowMs) + DAY_MS);
    if (days !== undefined) {
      const monday = (ms: number) => startOfUtcDay(ms) - ((new Date(ms).getUTCDay() + 6) % 7) * DAY_MS;
      const origin = days === 7 ? monday(nowMs) : monday(anchorMs);
      const length = days * DAY_MS;
      const start = origin + Math.max(0, Math.floor((nowMs - origin) / length)) * length;
      return span(start, start + length);
    }
    const now = new Date(nowMs);
    const month = Math.floor(now.getUTCMonth() / months) * months;
    const start = Date.UTC(now.getUTCFullYear(), month, 1);
    return span(start, addMonths(start, months));
  }
  if (days !== undefined) {
    const length = days * DAY_MS;
    const start = anchorMs + Math.max(0, Math.floor((nowMs - anchorMs) / length)) * length;
    return span(start, start + length);
  }
  let index = 0;
  while (addMonths(anchorMs, (index + 1) * months) <= nowMs) index += 1;
  return span(addMonths(anchorMs, index * months), addMonths(anchorMs, (index + 1) * months));
}

const span = (start: number, end: number) => ({ start: new Date(start), end: new Date(end) });
