/** Rows one retention statement removes: short enough that no lock is held long and autovacuum keeps up. */
export const RETENTION_BATCH = 1_000;
/** One retention sweep stops after this long; the next carries on where it stopped. */
export const RETENTION_BUDGET_MS = 5 * 60_000;

/**
 * Calls `deleteBatch(RETENTION_BATCH)` until a batch removes fewer rows than that or the sweep's budget
 * is spent; answers how many rows went in all.
 */
export async function deleteInBatches(deleteBatch: (limit: number) => Promise<number>): Promise<number> {
  const stopAt = Date.now() + RETENTION_BUDGET_MS;
  let deleted = 0;
  for (;;) {
    const batch = await deleteBatch(RETENTION_BATCH);
    deleted += batch;
    if (batch < RETENTION_BATCH || Date.now() > stopAt) return deleted;
  }
}
