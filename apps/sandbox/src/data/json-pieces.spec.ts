import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertProperty } from '#libs/testing';
import { JsonPieces, PIECE_BYTES } from './json-pieces.js';

/** Texts of any code points, and some past a piece (a record with a long description), which shrink fast. */
const text = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: 'binary', maxLength: 2_000 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }),
        fc.integer({ min: 22_000, max: 30_000 }),
      )
      .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length))),
  },
);

describe('JsonPieces', () => {
  it('sends every byte of the texts in order, in pieces no larger than they need be, and counts them', async () => {
    await assertProperty(
      fc.property(fc.array(text, { maxLength: 200 }), (texts) => {
        const body = new JsonPieces();
        for (const t of texts) body.add(t);
        const { pieces, bytes } = body.end();
        const whole = Buffer.from(texts.join(''));
        expect(Buffer.concat(pieces).equals(whole)).toBe(true);
        expect(bytes).toBe(whole.length);
        const longest = Math.max(0, ...texts.map((t) => t.length));
        for (const piece of pieces) {
          expect(piece.length).toBeGreaterThan(0);
          expect(piece.length).toBeLessThanOrEqual(Math.max(PIECE_BYTES, 3 * longest));
        }
      }),
      100,
    );
  });
});
