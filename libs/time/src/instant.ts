/**
 * The one rule for a point in time given to the API, in a query or a body: what the validator accepts is
 * exactly what this parses, so a value that passes validation can never fail further in.
 *
 * Accepted: a calendar date (`2026-11-23`, the start of that UTC day) or an RFC 3339 date-time with
 * seconds and a zone (`2026-11-23T10:00:00Z`, `2026-11-23T10:00:00.123+01:00`), fraction up to
 * milliseconds. Refused: the other ISO 8601 forms (basic `20261123`, week `2026-W48`, ordinal
 * `2026-327`), local times without a zone (whose instant depends on a server's clock), leap seconds
 * (`23:59:60`, which neither JavaScript nor the upstream represents), and instants outside years 1–9999.
 */
export const INSTANT_FORMS =
  'a date (2026-11-23) or a date-time with seconds and a zone (2026-11-23T10:00:00Z, 2026-11-23T10:00:00.123+01:00)';

/** The forms' syntax, for the OpenAPI document; parseInstant also checks the calendar and the range. */
export const INSTANT_PATTERN =
  '^(\\d{4})-(\\d{2})-(\\d{2})(?:T(\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d{1,3}))?(Z|[+-](\\d{2}):(\\d{2})))?$';
const INSTANT = new RegExp(INSTANT_PATTERN);

const MIN_MS = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** The instant `text` names, or undefined when it is not one of INSTANT_FORMS. */
export function parseInstant(text: string): Date | undefined {
  const match = INSTANT.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone, zh, zm] = match;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  const [hour, minute, second] = [Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0)];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (zh !== undefined && (Number(zh) > 23 || Number(zm) > 59)) return undefined;
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month - 1) return undefined; // 2026-02-30
  date.setUTCHours(hour, minute, second, fraction ? Number(fraction.padEnd(3, '0')) : 0);
  let ms = date.getTime();
  if (zone !== undefined && zone !== 'Z') {
    const offset = (Number(zh) * 60 + Number(zm)) * 60_000;
    ms -= zone.startsWith('-') ? -offset : offset;
  }
  if (ms < MIN_MS || ms > MAX_MS) return undefined;
  return new Date(ms);
}

/** The canonical text of an accepted instant: `2026-11-23T09:00:00.000Z`, what the upstream expects. */
export function canonicalInstant(text: string): string | undefined {
  return parseInstant(text)?.toISOString();
}
