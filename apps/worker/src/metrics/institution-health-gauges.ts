import type { Gauge } from 'prom-client';
import type { InstitutionHealth, InstitutionHealthRepository } from '#libs/domain/upstream-calls';
import type { SnapshotGauge } from './consent-gauges.js';
import { busiestInstitutions, INSTITUTION_LABELS, OTHER_INSTITUTIONS } from './institution-labels.js';

const HOUR_MS = 3_600_000;

/** What the institution health gauges read of the worker's database snapshot. */
export interface InstitutionHealthFigures {
  /** The last hour's attempts, the busiest institutions by name, the rest together as `other`. */
  health: InstitutionHealth[];
}

/**
 * The last hour's attempts of every merchant by institution, the bounded label set made here: a
 * percentile of several institutions is not made of theirs, so the rest's p95 is read again, together
 * (only once more than INSTITUTION_LABELS institutions were called).
 */
export async function lastHourHealth(
  repository: InstitutionHealthRepository,
  now: Date,
): Promise<InstitutionHealth[]> {
  const since = new Date(now.getTime() - HOUR_MS);
  const { named, rest } = busiestInstitutions(await repository.since(since), (r) => r.calls);
  if (rest.length === 0) return named;
  const other = await repository.sinceExcept(
    since,
    named.map((r) => r.institutionId),
  );
  return other ? [...named, { institutionId: OTHER_INSTITUTIONS, ...other }] : named;
}

const BY = `by institution (the ${INSTITUTION_LABELS} busiest; the rest as ${OTHER_INSTITUTIONS})`;

/** Institution health over the last hour: attempts, their error ratio and p95 latency (docs/insights.md). */
export function defineInstitutionHealthGauges<S extends InstitutionHealthFigures>(
  gauge: SnapshotGauge<S>,
): void {
  const each = (figure: (row: InstitutionHealth) => number) => (g: Gauge<'institution'>, s: S) => {
    g.reset();
    for (const row of s.health) g.set({ institution: row.institutionId }, figure(row));
  };
  gauge(
    'bff_institution_last_hour_calls',
    `Attempts of upstream calls made in the last hour for every merchant's consents, syncs and payments, ${BY}: what the error ratio and p95 are of.`,
    ['institution'],
    each((row) => row.calls),
  );
  gauge(
    'bff_institution_last_hour_error_ratio',
    `Of those attempts, the share that were the bank's or the upstream's failures (no answer, 5xx, 408, 429, a 424, an unreadable answer; not a 4xx refusal), ${BY}. GET /admin/insights/institution-health has the range and the hours.`,
    ['institution'],
    each((row) => row.errorRate),
  );
  gauge(
    'bff_institution_last_hour_p95_seconds',
    `The 95th percentile (percentile_disc) of those attempts' durations, ${BY}.`,
    ['institution'],
    each((row) => row.p95DurationMs / 1000),
  );
}
