import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '#libs/testing';
import { isUuid, uuidV7 } from './uuid.js';

describe('uuidV7', () => {
  it('is an RFC 9562 version 7 UUID whose first 48 bits are the millisecond time given', async () => {
    // Times repeat and alternate: each id holds its own time, however the one before was made.
    const time = fc.oneof(fc.constantFrom(0, 1, 2 ** 48 - 1), fc.integer({ min: 0, max: 2 ** 48 - 1 }));
    await assertProperty(
      fc.property(fc.array(time, { minLength: 1, maxLength: 20 }), (times) => {
        for (const now of times) {
          const id = uuidV7(now);
          expect(isUuid(id)).toBe(true);
          expect(id[14]).toBe('7');
          expect('89ab').toContain(id[19]);
          expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
        }
      }),
      500,
    );
  });

  it('sorts in creation order across milliseconds, and draws different random bits within one', () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => uuidV7(1_700_000_000_000 + Math.floor(i / 100)));
    const ms = (id: string) => id.slice(0, 13);
    expect(ids.map(ms)).toEqual([...ids.map(ms)].sort());
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i += 1)
      if (ms(ids[i]) > ms(ids[i - 1])) expect(ids[i] > ids[i - 1]).toBe(true);
  });

  it('refuses a time it cannot hold, rather than making an id that would not sort', () => {
    for (const bad of [-1, 1.5, 2 ** 48, Number.NaN]) {
      uuidV7(1_700_000_000_000);
      expect(() => uuidV7(bad)).toThrow(RangeError);
    }
  });
});
