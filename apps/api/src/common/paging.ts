import { applyDecorators, type Type } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type as TransformTo } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { envelope, invalidRequest, RememberedQuery } from '#libs/http';
import { isUuid } from '#libs/ids';

// Every list pages the same way (the API guide's paging): `?limit=&cursor=` in, and out
// `{ data, meta: { tracingId, count, nextCursor }, links?: { next } }`, `links.next` repeating the filters.

/** A page's size when the query names none, and the most one page holds, unless a list says otherwise. */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/**
 * `limit`: an integer from 1 to `max`. Give the property `default` as its initial value too: the query
 * object then carries the page size the list serves, and the document says which.
 */
export const PageLimit = ({ default: fallback = DEFAULT_LIMIT, max = MAX_LIMIT } = {}) =>
  applyDecorators(
    ApiPropertyOptional({ minimum: 1, maximum: max, default: fallback }),
    IsOptional(),
    TransformTo(() => Number),
    IsInt(),
    Min(1),
    Max(max),
  );

/**
 * `cursor`: `meta.nextCursor` of the previous page. Our keyset cursors are base64url (`keyset`); the
 * pass-through lists' signed cursors are judged by the service that issued them.
 */
export const PageCursor = ({
  description = 'Opaque cursor from meta.nextCursor',
  maxLength = 200,
  nonEmpty = false,
  keyset = false,
}: { description?: string; maxLength?: number; nonEmpty?: boolean; keyset?: boolean } = {}) =>
  applyDecorators(
    ApiPropertyOptional({ description }),
    IsOptional(),
    IsString(),
    ...(nonEmpty ? [MinLength(1)] : []),
    MaxLength(maxLength),
    ...(keyset
      ? [Matches(/^[A-Za-z0-9_-]+$/, { message: 'cursor must be a cursor from meta.nextCursor' })]
      : []),
  );

/** `?limit=&cursor=` of a keyset list (limit 1-100, default 50): extend it with the list's filters. */
export function ListQuery(
  options: { cursorMaxLength?: number } = {},
): Type<{ limit: number; cursor?: string }> {
  @RememberedQuery()
  class ListQueryBase {
    @PageLimit()
    limit: number = DEFAULT_LIMIT;

    @PageCursor({ maxLength: options.cursorMaxLength, keyset: true })
    cursor?: string;
  }
  return ListQueryBase;
}

/** Opaque cursors: base64url of what the next page starts after, so clients cannot depend on its form. */
export function encodeCursor(value: string): string {
  return Buffer.from(value, 'utf8').toString('base64url');
}

/**
 * A keyset cursor back to the key it encodes; by default keys are UUIDs, other lists name their own shape
 * (and, where the cursor is not `meta.nextCursor`, their own `issue`).
 */
export function decodeCursor(
  cursor: string | undefined,
  valid: RegExp | ((value: string) => boolean) = isUuid,
  issue = 'must be a cursor from meta.nextCursor',
): string | undefined {
  if (cursor === undefined) return undefined;
  const value = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!(typeof valid === 'function' ? valid(value) : valid.test(value))) {
    throw invalidRequest([{ field: 'cursor', issue }]);
  }
  return value;
}

/**
 * `meta` and `links` of a page: its count, the next page's cursor (null on the last page) and, with a
 * `link`, `links.next`: the list's path with the query to repeat (filters, limit) and the cursor.
 */
export function pageMeta(
  count: number,
  nextCursor: string | null,
  link?: { path: string; query?: Record<string, string | undefined> },
): { meta: { count: number; nextCursor: string | null }; links?: { next: string } } {
  const meta = { count, nextCursor };
  if (!nextCursor || !link) return { meta };
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(link.query ?? {})) if (value !== undefined) query.set(key, value);
  query.set('cursor', nextCursor);
  return { meta, links: { next: `${link.path}?${query.toString()}` } };
}

/**
 * The answer of a list that is whole in one answer (no `limit` or `cursor`): the same `meta` as a paged
 * list's last page, so every list of the API has one shape.
 */
export function listEnvelope<T>(items: T[]) {
  return envelope(items, pageMeta(items.length, null).meta);
}

/**
 * The page a keyset list's query asks for: `limit` and the key to start `after`, to hand the service,
 * then `answer` with the page's items and the key the next page starts after (none on the last page).
 */
export function keysetPage(
  query: { limit: number; cursor?: string },
  path: string,
  options: { key?: RegExp | ((value: string) => boolean); filters?: Record<string, string | undefined> } = {},
) {
  const { limit } = query;
  return {
    limit,
    after: decodeCursor(query.cursor, options.key),
    answer<T>(items: T[], nextAfter: string | null | undefined) {
      const { meta, links } = pageMeta(items.length, nextAfter != null ? encodeCursor(nextAfter) : null, {
        path,
        query: { ...options.filters, limit: String(limit) },
      });
      return envelope(items, meta, links);
    },
  };
}
