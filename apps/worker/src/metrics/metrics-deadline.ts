/**
 * How long one refresh of the worker's gauges may take. Queue connections retry without limit while
 * Redis is away (BullMQ needs that for its workers), so a read would otherwise wait for the whole outage
 * and every scrape meanwhile would wait on it.
 */
export const METRICS_READ_DEADLINE_MS = 5_000;

export async function withDeadline<T>(
  work: Promise<T>,
  what: string,
  ms = METRICS_READ_DEADLINE_MS,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  // Still settles later (a command left in the offline queue): nobody waits for it, and it may not throw unseen.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
