import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, listEnvelope, pageEnvelope } from './paging.js';

const ID = '0190c0de-0000-7000-8000-000000000001';

describe('keyset paging: cursors and the page envelope', () => {
  it('round-trips an id through an opaque cursor', () => {
    const cursor = encodeCursor(ID);
    expect(cursor).not.toContain(ID);
    expect(decodeCursor(cursor)).toBe(ID);
    expect(decodeCursor(undefined)).toBeUndefined();
  });

  it('refuses a cursor that does not decode to the list’s id shape, naming the field', () => {
    for (const bad of [encodeCursor('not-a-uuid'), 'garbage', encodeCursor(`${ID}x`)]) {
      expect(() => decodeCursor(bad)).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          extra: { details: [{ field: 'cursor', issue: expect.any(String) }] },
        }),
      );
    }
    expect(decodeCursor(encodeCursor('42'), /^\d+$/)).toBe('42');
  });

  it('gives the next page’s cursor and link, with the filters, until the last page', () => {
    const page = pageEnvelope('t-1', [{ id: 1 }], {
      path: '/v1/users',
      limit: 1,
      after: ID,
      filters: { reference: 'a b', skipped: undefined },
    });
    expect(page.meta).toMatchObject({ tracingId: 't-1', count: 1, nextCursor: encodeCursor(ID) });
    expect(page.links?.next).toBe(`/v1/users?reference=a+b&limit=1&cursor=${encodeCursor(ID)}`);

    const last = pageEnvelope('t-2', [], { path: '/v1/users', limit: 1, after: null });
    expect(last.meta).toMatchObject({ count: 0, nextCursor: null });
    expect(last.links).toBeUndefined();
  });

  it('gives a list whole in one answer the same meta as a last page: count and a null nextCursor', () => {
    const list = listEnvelope('t-3', [{ id: 1 }, { id: 2 }]);
    expect(list).toEqual({
      data: [{ id: 1 }, { id: 2 }],
      meta: { tracingId: 't-3', count: 2, nextCursor: null },
    });
  });
});
