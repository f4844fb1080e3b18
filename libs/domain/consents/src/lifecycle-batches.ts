/* How the consent lifecycle walks many consents: in keyset batches, a few calls at a time. */
import { withWork } from '#libs/context';

/** Rows a lifecycle batch reads at once. */
export const BATCH = 500;

/** Upstream calls in flight at once: re-authorisations and reconciliation stay polite to the rate limit. */
export const PARALLEL_CALLS = 4;

/** The keyset's start: below every id. */
export const MIN_UUID = '00000000-0000-0000-0000-000000000000';

/** The query parameter each listed user id takes (`filter[applicationUserId]=`, and its `&`). */
const PER_ID_CHARS = '&filter[applicationUserId]='.length;

/** Ids grouped so that each group's query string (every id with its parameter name) stays within `chars`. */
export function byQueryLength(ids: string[], chars: number): string[][] {
  const groups: string[][] = [];
  let length = chars;
  for (const id of ids) {
    const cost = encodeURIComponent(id).length + PER_ID_CHARS;
    if (length + cost > chars) {
      groups.push([]);
      length = 0;
    }
    groups.at(-1)!.push(id);
    length += cost;
  }
  return groups;
}

export async function inParallel<T>(
  items: T[],
  width: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

/** Keyset-paged: each batch read after the last row of the one before, until one comes back short. */
export async function eachBatch<T>(
  read: (after: T | undefined) => Promise<T[]>,
  handle: (batch: T[]) => Promise<void>,
): Promise<void> {
  let after: T | undefined;
  for (;;) {
    const batch = await read(after);
    if (batch.length > 0) await handle(batch);
    if (batch.length < BATCH) return;
    after = batch[batch.length - 1];
  }
}

/** Runs `fn` for one consent of a batch in a context of its own: its upstream calls are logged under it. */
export const forConsent = <T>(consent: { id: string; merchantId: string }, fn: () => T): T =>
  withWork({ merchantId: consent.merchantId, consentId: consent.id }, fn);
