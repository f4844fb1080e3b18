/**
 * A calendar day, UTC, written `YYYY-MM-DD`: what a range of whole days takes (connection conversion),
 * where an instant would say more than is meant. Its syntax for the OpenAPI document; isCalendarDay also
 * checks the calendar (2026-02-30 is no day).
 */
export const DAY_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';
const DAY = new RegExp(DAY_PATTERN);

/** Whether `value` is a calendar day written YYYY-MM-DD. */
export function isCalendarDay(value: unknown): value is string {
  if (typeof value !== 'string' || !DAY.test(value)) return false;
  const midnight = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(midnight.getTime()) && midnight.toISOString().startsWith(value);
}
