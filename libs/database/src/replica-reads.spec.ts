import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { afterInsert, lsnNumber } from './replica-reads.js';

describe('WAL positions', () => {
  it('reads an LSN as a number, high word first', () => {
    expect(lsnNumber('0/0')).toBe(0);
    expect(lsnNumber('0/3001190')).toBe(0x3001190);
    expect(lsnNumber('16/B374D848')).toBe(0x16 * 2 ** 32 + 0xb374d848);
  });

  it('orders LSNs as Postgres does', () => {
    const lsn = fc.tuple(fc.integer({ min: 0, max: 0xfffff }), fc.integer({ min: 0, max: 0xffffffff }));
    fc.assert(
      fc.property(lsn, lsn, ([h1, l1], [h2, l2]) => {
        const text = (h: number, l: number) =>
          `${h.toString(16).toUpperCase()}/${l.toString(16).toUpperCase()}`;
        const expected = h1 === h2 ? Math.sign(l1 - l2) : Math.sign(h1 - h2);
        expect(Math.sign(lsnNumber(text(h1, l1)) - lsnNumber(text(h2, l2)))).toBe(expected);
      }),
    );
  });

  it('takes a page header off an insert position, and leaves any record end as it is', () => {
    const block = 8192;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 0, max: block - 1 }),
        (page, at) => {
          const position = page * block + at;
          const header = at === 24 || at === 40;
          expect(afterInsert(position, block)).toBe(header ? page * block : position);
        },
      ),
    );
  });
});
