import { UpstreamError } from './upstream.error.js';
import type { UpstreamPage } from './upstream.types.js';

/** The upstream's default and largest page for offset paging (upstream spec §4.2.1, 8). */
export const MAX_OFFSET_LIMIT = 1000;

export interface PagingOptions {
  /**
   * Stop with a PROTOCOL error after this many pages: a server that keeps sending full pages must not
   * keep a sync running forever. The default covers a million records at the largest page size.
   */
  maxPages?: number;
}

export const DEFAULT_MAX_PAGES = 1000;

export interface OffsetWalk {
  /** The offset the walk started at. */
  startOffset: number;
  /** totalCount of the first page: the walk never goes past startOffset + this. */
  firstTotal: number | undefined;
}

/**
 * Where the next offset page starts, or undefined when the walk is done (upstream spec §4.2.1, rule 3). Correct
 * whether the server counts totalCount over the whole query or from the request's offset on: advance by
 * `self.limit`, and stop on an empty page, a short page, totalCount ≤ self.limit, or once the offset
 * reaches what the first page said was there. `links.next` and `next.offset` are never trusted.
 */
export function nextOffset(
  walk: OffsetWalk,
  offset: number,
  page: UpstreamPage<unknown>,
  requestedLimit: number,
  operation = 'paging',
) {
  const limit = pageLimit(page, requestedLimit);
  const total = page.totalCount;
  const received = page.data.length;
  if (received > limit) {
    // Advancing by the limit would re-read records (overlapping pages); advancing by the count would
    // trust a server that already broke the contract.
    throw protocolError(`a page holds ${received} records, more than its limit ${limit}`, page, operation);
  }
  if (received === 0 || received < limit) return undefined;
  if (total !== undefined && total <= limit) return undefined;
  const next = offset + limit;
  if (walk.firstTotal !== undefined && next >= walk.startOffset + walk.firstTotal) return undefined;
  return next;
}

/**
 * `self.limit` when it is a usable page size (an integer in 1..1000); anything else (0, negative,
 * fractional, absurd) would repeat or skip offsets, so the requested limit is used instead.
 */
function pageLimit(page: UpstreamPage<unknown>, requestedLimit: number): number {
  const limit = page.meta.pagination?.self?.limit;
  return typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= MAX_OFFSET_LIMIT
    ? limit
    : requestedLimit;
}

function protocolError(message: string, page: UpstreamPage<unknown> | undefined, operation: string) {
  return new UpstreamError(`${operation}: ${message}`, {
    kind: 'PROTOCOL',
    shape: 'unrecognised',
    retryable: false,
    status: page?.status,
    tracingId: page?.tracingId,
    requestId: page?.requestId,
    operation,
  });
}

/** Offset paging as an async iterator of pages; `fetchPage` gets the offset and the limit to send. */
export async function* offsetPages<T>(
  operation: string,
  fetchPage: (offset: number, limit: number, page: number) => Promise<UpstreamPage<T>>,
  start: { offset?: number; limit?: number },
  options: PagingOptions = {},
): AsyncGenerator<UpstreamPage<T>, void, undefined> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const limit = start.limit ?? MAX_OFFSET_LIMIT;
  const walk: OffsetWalk = { startOffset: start.offset ?? 0, firstTotal: undefined };
  let offset: number | undefined = walk.startOffset;
  for (let pages = 0; offset !== undefined; pages += 1) {
    if (pages >= maxPages) throw protocolError(`still paging after ${maxPages} pages`, undefined, operation);
    const page = await fetchPage(offset, limit, pages + 1);
    if (pages === 0) walk.firstTotal = page.totalCount;
    yield page;
    offset = nextOffset(walk, offset, page, limit, operation);
  }
}

/**
 * The cursor a `links` value carries: the spec calls them opaque values, servers often send URLs. Only
 * an absolute http(s) link is read as a URL (a bare cursor may well start with `/`, as base64 can);
 * anything else is the cursor itself. Undefined only when there is no link, or a URL without a cursor.
 */
export function cursorOf(link: string | undefined): string | undefined {
  if (!link) return undefined;
  if (!/^https?:\/\//i.test(link)) return link;
  try {
    return new URL(link).searchParams.get('cursor') || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Cursor paging: follow `links.next` until a page has none (upstream spec §4.2.1). Only the cursor is taken from
 * the link, never its host, so credentials go nowhere but the configured upstream. A cursor seen twice
 * would loop forever, so it ends the walk with a PROTOCOL error.
 */
export async function* cursorPages<T>(
  operation: string,
  fetchPage: (cursor: string | undefined, page: number) => Promise<UpstreamPage<T>>,
  options: PagingOptions = {},
): AsyncGenerator<UpstreamPage<T>, void, undefined> {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; ; pages += 1) {
    if (pages >= maxPages) throw protocolError(`still paging after ${maxPages} pages`, undefined, operation);
    const page = await fetchPage(cursor, pages + 1);
    yield page;
    const link = page.links?.next;
    if (!link) return;
    const next = cursorOf(link);
    // A next page exists but cannot be reached: stopping quietly would lose its records.
    if (next === undefined) throw protocolError('links.next carries no cursor to follow', page, operation);
    if (seen.has(next)) throw protocolError('links.next repeats a cursor already followed', page, operation);
    seen.add(next);
    cursor = next;
  }
}

/** Flattens pages into records: `for await (const tx of items(client.transactionPages(…)))`. */
export async function* items<T>(pages: AsyncIterable<UpstreamPage<T>>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page.data;
}
