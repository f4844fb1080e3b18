/** Institutions labelled by name in a gauge: the busiest; the rest together as `other` (a bounded label set). */
export const INSTITUTION_LABELS = 50;
/** The label of the institutions beyond INSTITUTION_LABELS, together. */
export const OTHER_INSTITUTIONS = 'other';

/**
 * The INSTITUTION_LABELS busiest institutions (by `weight`, ties by id), which a gauge names, and the
 * rest, which it shows together as OTHER_INSTITUTIONS: summed, or read again together when a figure does not
 * add up (a percentile).
 */
export function busiestInstitutions<R extends { institutionId: string }>(
  rows: readonly R[],
  weight: (row: R) => number,
): { named: R[]; rest: R[] } {
  const busiest = [...rows].sort(
    (a, b) => weight(b) - weight(a) || a.institutionId.localeCompare(b.institutionId),
  );
  return { named: busiest.slice(0, INSTITUTION_LABELS), rest: busiest.slice(INSTITUTION_LABELS) };
}
