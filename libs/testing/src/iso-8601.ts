import fc from 'fast-check';

/**
 * Generated ISO 8601 text, split by the API's one rule (see `parseInstant`): `acceptedInstant` is only
 * what it must accept, `refusedIso8601` only ISO 8601 forms it must refuse (basic, week, ordinal, local
 * times, leap seconds, 24:00, comma and long fractions, lowercase, short offsets, impossible dates).
 */

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (year: number, month: number) => {
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return last.getUTCDate();
};

const date = fc
  .record({
    year: fc.integer({ min: 2, max: 9998 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.nat(30),
  })
  .map(({ year, month, day }) => ({ year, month, day: 1 + (day % daysIn(year, month)) }));
const time = fc.record({
  hour: fc.integer({ min: 0, max: 23 }),
  minute: fc.integer({ min: 0, max: 59 }),
  second: fc.integer({ min: 0, max: 59 }),
});
const zone = fc.oneof(
  fc.constant('Z'),
  fc
    .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
    .map(([sign, h, m]) => `${sign}${pad(h, 2)}:${pad(m, 2)}`),
);

const extendedDate = date.map((d) => `${pad(d.year, 4)}-${pad(d.month, 2)}-${pad(d.day, 2)}`);
const extendedTime = time.map((t) => `${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}`);

export const acceptedInstant: fc.Arbitrary<string> = fc.oneof(
  extendedDate,
  fc
    .tuple(extendedDate, extendedTime, fc.option(fc.stringMatching(/^\.\d{1,3}$/)), zone)
    .map(([d, t, fraction, z]) => `${d}T${t}${fraction ?? ''}${z}`),
);

export const refusedIso8601: fc.Arbitrary<string> = fc.oneof(
  // Basic forms
  date.map((d) => `${pad(d.year, 4)}${pad(d.month, 2)}${pad(d.day, 2)}`),
  fc
    .tuple(date, time)
    .map(
      ([d, t]) =>
        `${pad(d.year, 4)}${pad(d.month, 2)}${pad(d.day, 2)}T${pad(t.hour, 2)}${pad(t.minute, 2)}${pad(t.second, 2)}Z`,
    ),
  // Week and ordinal dates
  fc
    .tuple(
      fc.integer({ min: 1000, max: 9999 }),
      fc.integer({ min: 1, max: 53 }),
      fc.option(fc.integer({ min: 1, max: 7 })),
    )
    .chain(([y, w, d]) =>
      fc.constantFrom(`${y}-W${pad(w, 2)}${d ? `-${d}` : ''}`, `${y}W${pad(w, 2)}${d ?? ''}`),
    ),
  fc
    .tuple(fc.integer({ min: 1000, max: 9999 }), fc.integer({ min: 1, max: 366 }))
    .chain(([y, n]) => fc.constantFrom(`${y}-${pad(n, 3)}`, `${y}${pad(n, 3)}`)),
  // Reduced precision and year-month
  fc.integer({ min: 1000, max: 9999 }).map(String),
  date.map((d) => `${pad(d.year, 4)}-${pad(d.month, 2)}`),
  fc.tuple(extendedDate, time, zone).map(([d, t, z]) => `${d}T${pad(t.hour, 2)}:${pad(t.minute, 2)}${z}`),
  fc.tuple(extendedDate, time, zone).map(([d, t, z]) => `${d}T${pad(t.hour, 2)}${z}`),
  // Local times (no zone), a space or a lowercase separator
  fc.tuple(extendedDate, extendedTime).map(([d, t]) => `${d}T${t}`),
  fc.tuple(extendedDate, extendedTime, zone).map(([d, t, z]) => `${d} ${t}${z}`),
  fc.tuple(extendedDate, extendedTime).map(([d, t]) => `${d}t${t}z`),
  // Offsets without a colon or minutes; a comma or a long fraction
  fc
    .tuple(extendedDate, extendedTime, fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }))
    .chain(([d, t, s, h]) => fc.constantFrom(`${d}T${t}${s}${pad(h, 2)}`, `${d}T${t}${s}${pad(h, 2)}00`)),
  fc.tuple(extendedDate, extendedTime, zone).map(([d, t, z]) => `${d}T${t},5${z}`),
  fc
    .tuple(extendedDate, extendedTime, fc.stringMatching(/^\d{4,9}$/), zone)
    .map(([d, t, f, z]) => `${d}T${t}.${f}${z}`),
  // Leap seconds, 24:00, impossible dates and times, expanded years
  fc.tuple(extendedDate, zone).map(([d, z]) => `${d}T23:59:60${z}`),
  fc.tuple(extendedDate, zone).map(([d, z]) => `${d}T24:00:00${z}`),
  fc.tuple(fc.integer({ min: 1000, max: 9999 }), zone).map(([y, z]) => `${y}-02-30T00:00:00${z}`),
  fc.integer({ min: 1000, max: 9999 }).map((y) => `${y}-13-01`),
  fc.integer({ min: 1000, max: 9999 }).map((y) => `${y}-00-10`),
  fc.integer({ min: 1000, max: 9999 }).map((y) => `${y}-04-31`),
  fc
    .integer({ min: 1001, max: 9999 })
    .filter((y) => !isLeap(y))
    .map((y) => `${y}-02-29`),
  fc.tuple(extendedDate, zone).map(([d, z]) => `${d}T10:60:00${z}`),
  fc.tuple(extendedDate).map(([d]) => `${d}T10:00:00+24:00`),
  fc.integer({ min: 10_000, max: 275_000 }).map((y) => `+${y}-01-01`),
  fc.constantFrom('-0001-01-01', '0000-01-01', '9999-12-31T23:00:00-02:00'),
);
