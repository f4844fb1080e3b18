/**
 * The API's lists come a page at a time (`meta.nextCursor`, null on the last). A `PagedList` is one list,
 * fetched lazily: iterate it with `for await` to get every item, or ask for pages yourself.
 */

/** One page: its items and the cursor of the next, null on the last. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /** The request's id (`meta.tracingId`). */
  tracingId: string;
  /**
   * Stored transactions only: false while the account's first sync is still writing the list (it holds
   * the pages written so far); wait for `consent.synced` or `sync.succeeded` and read again.
   */
  complete?: boolean;
}

export interface PagedList<T> extends AsyncIterable<T> {
  /** The first page, or the page `cursor` (a `nextCursor` from before) names. */
  page(cursor?: string): Promise<Page<T>>;
  /** Every page in order, from the first (or from `cursor`), fetched as you go. */
  pages(cursor?: string): AsyncIterable<Page<T>>;
  /** Every item in one array: the whole list in memory, so for lists you know are short. */
  toArray(): Promise<T[]>;
}

/** A success envelope of a list. */
export interface ListEnvelope<T> {
  data: T[];
  meta: { nextCursor: string | null; tracingId: string; complete?: boolean };
}

/**
 * A list over `fetchPage`. `withCursor` makes the query of a later page from the first's: by default the
 * same query with the cursor; the lists whose cursors carry their filters want less (see their methods).
 */
export function pagedList<T, Q extends object>(
  fetchPage: (query: Q) => Promise<ListEnvelope<T>>,
  query: Q,
  withCursor: (query: Q, cursor: string) => Q = (first, cursor) => ({ ...first, cursor }),
): PagedList<T> {
  const page = async (cursor?: string): Promise<Page<T>> => {
    const envelope = await fetchPage(cursor === undefined ? query : withCursor(query, cursor));
    const { nextCursor, tracingId, complete } = envelope.meta;
    return { items: envelope.data, nextCursor, tracingId, ...(complete === undefined ? {} : { complete }) };
  };
  async function* pages(cursor?: string): AsyncGenerator<Page<T>> {
    let next: string | null | undefined = cursor;
    do {
      const current = await page(next ?? undefined);
      yield current;
      next = current.nextCursor;
      // A list answered without a cursor at all has no next page either: never the first page again.
    } while (next !== null && next !== undefined);
  }
  async function* items(): AsyncGenerator<T> {
    for await (const current of pages()) yield* current.items;
  }
  return {
    page,
    pages,
    [Symbol.asyncIterator]: () => items(),
    async toArray() {
      const all: T[] = [];
      for await (const item of items()) all.push(item);
      return all;
    },
  };
}
