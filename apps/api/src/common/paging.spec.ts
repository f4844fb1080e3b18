import { describe, expect, it } from 'vitest';
import { runInContext } from '#libs/context';
import { decodeCursor, encodeCursor, keysetPage, listEnvelope, pageMeta } from './paging.js';

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
    const page = keysetPage({ limit: 1, cursor: encodeCursor(ID) }, '/v1/users', {
      filters: { reference: 'a b', skipped: undefined },
    });
    expect(page).toMatchObject({ limit: 1, after: ID });
    const answer = runInContext({ requestId: 't-1' }, () => page.answer([{ id: 1 }], ID));
    expect(JSON.stringify(answer)).toBe(
      JSON.stringify({
        data: [{ id: 1 }],
        meta: { tracingId: 't-1', count: 1, nextCursor: encodeCursor(ID) },
        links: { next: `/v1/users?reference=a+b&limit=1&cursor=${encodeCursor(ID)}` },
      }),
    );

    const last = runInContext({ requestId: 't-2' }, () =>
      keysetPage({ limit: 1 }, '/v1/users').answer([], null),
    );
    expect(last.meta).toMatchObject({ count: 0, nextCursor: null });
    expect(last).not.toHaveProperty('links');
  });

  it('links a pass-through list’s own cursor, and leaves a list without a path unlinked', () => {
    expect(pageMeta(2, 'a.b', { path: '/v1/x', query: { sort: '-date', from: undefined } })).toEqual({
      meta: { count: 2, nextCursor: 'a.b' },
      links: { next: '/v1/x?sort=-date&cursor=a.b' },
    });
    expect(pageMeta(2, 'a.b')).toEqual({ meta: { count: 2, nextCursor: 'a.b' } });
  });

  it('gives a list whole in one answer the same meta as a last page: count and a null nextCursor', () => {
    const list = runInContext({ requestId: 't-3' }, () => listEnvelope([{ id: 1 }, { id: 2 }]));
    expect(list).toEqual({
      data: [{ id: 1 }, { id: 2 }],
      meta: { tracingId: 't-3', count: 2, nextCursor: null },
    });
  });

  it('refuses to build an answer outside a request context (a wiring bug, never a blank tracingId)', () => {
    expect(() => listEnvelope([])).toThrow('outside a request context');
  });
});
