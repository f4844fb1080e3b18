import { DomainError, ErrorCode, envelope } from '#libs/http';
import { isUuid } from '#libs/ids';

/** Opaque cursors: base64url of what the next page starts after, so clients cannot depend on its form. */
export function encodeCursor(value: string): string {
  return Buffer.from(value, 'utf8').toString('base64url');
}

/** A keyset cursor back to the id it encodes; by default ids are UUIDs, other lists name their own shape. */
export function decodeCursor(
  cursor: string | undefined,
  valid: RegExp | ((value: string) => boolean) = isUuid,
): string | undefined {
  if (cursor === undefined) return undefined;
  const value = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!(typeof valid === 'function' ? valid(value) : valid.test(value))) {
    throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The request is invalid.', {
      details: [{ field: 'cursor', issue: 'must be a cursor from meta.nextCursor' }],
    });
  }
  return value;
}

/**
 * The answer of a list that is whole in one answer (no `limit` or `cursor`): the same `meta` as a paged
 * list's last page, `meta.count` and `meta.nextCursor: null`, so every list of the API has one shape.
 */
export function listEnvelope<T>(tracingId: string, items: T[]) {
  return envelope(tracingId, items, { count: items.length, nextCursor: null });
}

/**
 * The answer of a keyset-paged list (the API guide's paging): `meta.count`, an opaque `meta.nextCursor`
 * (null on the last page) and `links.next` repeating the list's filters.
 */
export function pageEnvelope<T>(
  tracingId: string,
  items: T[],
  page: {
    path: string;
    limit: number;
    after: string | null | undefined;
    filters?: Record<string, string | undefined>;
  },
) {
  const nextCursor = page.after != null ? encodeCursor(page.after) : null;
  let links: { next: string } | undefined;
  if (nextCursor) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(page.filters ?? {}))
      if (value !== undefined) query.set(key, value);
    query.set('limit', String(page.limit));
    query.set('cursor', nextCursor);
    links = { next: `${page.path}?${query.toString()}` };
  }
  return envelope(tracingId, items, { count: items.length, nextCursor }, links);
}
