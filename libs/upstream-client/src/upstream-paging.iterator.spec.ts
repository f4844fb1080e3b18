import { describe, expect, it } from 'vitest';
import type { UpstreamPage } from './upstream.types.js';
import { cursorOf, nextOffset } from './upstream-paging.iterator.js';

const page = (records: number, totalCount: number | undefined, limit = 1000): UpstreamPage<unknown> => ({
  data: Array.from({ length: records }),
  totalCount,
  tracingId: 't',
  requestId: 'r',
  status: 200,
  meta: { pagination: { totalCount, self: { limit } } },
});

/** Walks a server that reports totalCount either over the whole query or from the offset on. */
function walk(records: number, limit: number, counting: 'whole' | 'remaining', start = 0) {
  const offsets: number[] = [];
  let offset: number | undefined = start;
  const state = { startOffset: start, firstTotal: undefined as number | undefined };
  while (offset !== undefined && offsets.length < 100) {
    offsets.push(offset);
    const n = Math.max(0, Math.min(limit, records - offset));
    const total = counting === 'whole' ? records : Math.max(0, records - offset);
    if (state.firstTotal === undefined) state.firstTotal = total;
    offset = nextOffset(state, offset, page(n, total, limit), limit);
  }
  return offsets;
}

describe('nextOffset (upstream spec §4.2.1 rule 3)', () => {
  it.each(['whole', 'remaining'] as const)(
    'walks the worked examples when totalCount counts %s',
    (counting) => {
      expect(walk(6500, 1000, counting)).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000]);
      expect(walk(467, 50, counting)).toEqual([0, 50, 100, 150, 200, 250, 300, 350, 400, 450]);
    },
  );

  it.each(['whole', 'remaining'] as const)(
    'stops right on exact multiples and tiny lists (%s)',
    (counting) => {
      expect(walk(3000, 1000, counting)).toEqual(counting === 'whole' ? [0, 1000, 2000] : [0, 1000, 2000]);
      expect(walk(0, 1000, counting)).toEqual([0]);
      expect(walk(1000, 1000, counting)).toEqual([0]);
      expect(walk(1, 1, counting)).toEqual([0]);
    },
  );

  it('starts from a given offset without skipping the tail, whichever way totalCount counts', () => {
    expect(walk(6500, 1000, 'remaining', 1000)).toEqual([1000, 2000, 3000, 4000, 5000, 6000]);
    expect(walk(6500, 1000, 'whole', 1000)).toEqual([1000, 2000, 3000, 4000, 5000, 6000]);
  });

  it('stops on an empty page and on a short page even if totalCount says more', () => {
    const state = { startOffset: 0, firstTotal: 10_000 };
    expect(nextOffset(state, 0, page(0, 10_000), 1000)).toBeUndefined();
    expect(nextOffset(state, 0, page(999, 10_000), 1000)).toBeUndefined();
  });

  it('uses self.limit, not the requested limit, to advance (the server may cap it)', () => {
    const state = { startOffset: 0, firstTotal: 5000 };
    expect(nextOffset(state, 0, page(500, 5000, 500), 1000)).toBe(500);
  });

  it('does not rely on totalCount being present', () => {
    const state = { startOffset: 0, firstTotal: undefined };
    expect(nextOffset(state, 0, page(1000, undefined), 1000)).toBe(1000);
    expect(nextOffset(state, 1000, page(10, undefined), 1000)).toBeUndefined();
  });
});

describe('cursorOf', () => {
  it('takes the cursor out of a link URL and passes a bare cursor through', () => {
    expect(cursorOf('http://up.example/accounts/a/real-time/transactions?cursor=abc.def')).toBe('abc.def');
    // Only absolute http(s) links are URLs: a base64 cursor may start with '/'.
    expect(cursorOf('/9j/4AAQSkZJRg==')).toBe('/9j/4AAQSkZJRg==');
    expect(cursorOf('http://up.example/a?cursor=x%2By')).toBe('x+y');
    expect(cursorOf('opaque-cursor')).toBe('opaque-cursor');
    expect(cursorOf(undefined)).toBeUndefined();
    expect(cursorOf('')).toBeUndefined();
    expect(cursorOf('http://up.example/no-cursor')).toBeUndefined();
  });
});
