import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptedInstant, assertProperty, refusedIso8601 } from '#libs/testing';
import { canonicalInstant, INSTANT_PATTERN, parseInstant } from './instant.js';

describe('parseInstant: the one rule for a point in time', () => {
  it('accepts every date and zoned date-time, as the ECMAScript parser reads them', async () => {
    await assertProperty(
      fc.property(acceptedInstant, (text) => {
        const parsed = parseInstant(text);
        expect(parsed, text).toBeInstanceOf(Date);
        expect(parsed!.getTime(), text).toBe(Date.parse(text));
        // Canonical text is accepted too, and names the same instant.
        expect(parseInstant(canonicalInstant(text)!)?.getTime(), text).toBe(parsed!.getTime());
        expect(new RegExp(INSTANT_PATTERN).test(text), text).toBe(true);
      }),
      1000,
    );
  });

  it('refuses every other ISO 8601 form, and never throws', async () => {
    await assertProperty(
      fc.property(refusedIso8601, (text) => {
        expect(parseInstant(text), text).toBeUndefined();
      }),
      1000,
    );
    await assertProperty(
      fc.property(fc.string(), (text) => {
        parseInstant(text);
      }),
      1000,
    );
  });

  it('reads a date as the start of its UTC day and an offset as a shift', () => {
    expect(canonicalInstant('2026-11-23')).toBe('2026-11-23T00:00:00.000Z');
    expect(canonicalInstant('2026-11-23T01:30:00.5+02:00')).toBe('2026-11-22T23:30:00.500Z');
    expect(canonicalInstant('0099-01-01')).toBe('0099-01-01T00:00:00.000Z');
    expect(canonicalInstant('2028-02-29')).toBe('2028-02-29T00:00:00.000Z');
  });
});
