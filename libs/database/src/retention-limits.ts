/** Rows one retention statement removes: short enough that no lock is held long and autovacuum keeps up. */
export const RETENTION_BATCH = 1_000;
/** One retention sweep stops after this long; the next carries on where it stopped. */
export const RETENTION_BUDGET_MS = 5 * 60_000;
