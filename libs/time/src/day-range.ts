import { invalidRequest } from '#libs/errors';

const DAY_MS = 86_400_000;
/** The longest range of days one answer covers: a year of days (a row a day and institution at most). */
export const DAY_RANGE_MAX_DAYS = 366;

/** Whole calendar days, UTC, `from` and `to` both included (YYYY-MM-DD). */
export interface DayRange {
  from: string;
  to: string;
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/**
 * The rule of every range of days the API takes (the insights): the days asked for, each already checked
 * to be a calendar day (isCalendarDay), `to` defaulting to today (UTC) and `from` to `defaultDays` days
 * ending with `to`. `from` after `to`, or more than DAY_RANGE_MAX_DAYS days, is a 400 naming `from`.
 */
export function dayRangeOf(asked: Partial<DayRange>, today: Date, defaultDays: number): DayRange {
  const to = asked.to ?? dayOf(today);
  const from = asked.from ?? dayOf(new Date(Date.parse(to) - (defaultDays - 1) * DAY_MS));
  const days = daysIn({ from, to });
  if (days < 1) throw invalidRequest([{ field: 'from', issue: 'from must not be after to' }]);
  if (days > DAY_RANGE_MAX_DAYS) {
    throw invalidRequest([
      {
        field: 'from',
        issue: `from and to must be at most ${DAY_RANGE_MAX_DAYS} days apart, both included`,
      },
    ]);
  }
  return { from, to };
}

/** How many days a range holds, both ends included. */
export const daysIn = ({ from, to }: DayRange) => (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;

/** The instants a range spans: the midnight (UTC) that starts `from`, and the one that ends `to`. */
export function instantsOf({ from, to }: DayRange): { start: Date; end: Date } {
  return { start: new Date(Date.parse(from)), end: new Date(Date.parse(to) + DAY_MS) };
}
