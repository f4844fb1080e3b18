import type { Gauge } from 'prom-client';
import {
  CONSENT_KINDS,
  type ConsentCount,
  ConsentStatus,
  type ConversionCounts,
  type ExpiringCount,
} from '#libs/domain/consents';
import { busiestInstitutions, INSTITUTION_LABELS, OTHER_INSTITUTIONS } from './institution-labels.js';

const RENEWALS = ['requested', 'not_requested', 'not_renewable'] as const;
/** The conversion gauge's outcomes: `started` and what became of those, then `first_synced` of those. */
const CONVERSION_FIELDS = [
  ['started', 'started'],
  ['authorised', 'authorised'],
  ['rejected', 'rejected'],
  ['abandoned', 'abandoned'],
  ['failed', 'failed'],
  ['pending', 'pending'],
  ['first_synced', 'firstSynced'],
] as const satisfies readonly (readonly [string, keyof ConversionCounts])[];

/** What the consent gauges read of the worker's database snapshot. */
export interface ConsentFigures {
  consents: ConsentCount[];
  expiring: ExpiringCount[];
  conversion: ConversionCounts[];
}

/** Declares a gauge filled from the snapshot (DatabaseMetricsCollector's). */
export type SnapshotGauge<S> = <L extends string>(
  name: string,
  help: string,
  labelNames: L[],
  fill: (gauge: Gauge<L>, snapshot: S) => void,
) => Gauge<L>;

/** The busiest institutions by name, the rest summed as `other`. */
function labelled(rows: ConversionCounts[]): ConversionCounts[] {
  const { named, rest } = busiestInstitutions(rows, (r) => r.started);
  if (rest.length === 0) return named;
  const other = { ...rest[0], institutionId: OTHER_INSTITUTIONS };
  for (const [, field] of CONVERSION_FIELDS) other[field] = rest.reduce((sum, r) => sum + r[field], 0);
  return [...named, other];
}

/** The gauges of consents: by status, expiring unrenewed, and the last day's conversion by institution. */
export function defineConsentGauges<S extends ConsentFigures>(gauge: SnapshotGauge<S>): void {
  gauge(
    'bff_consents',
    'Consents by status (the closed set of libs/domain/consents) and kind.',
    ['status', 'kind'],
    (g, s) => {
      for (const status of Object.values(ConsentStatus))
        for (const kind of CONSENT_KINDS) g.set({ status, kind }, 0);
      for (const row of s.consents) g.set({ status: row.status, kind: row.kind }, row.consents);
    },
  );
  gauge(
    'bff_consents_expiring',
    'Data consents still usable that expire within 1 day or 7 days (cumulative: 7d includes 1d), by renewal: requested (awaiting the user), not_requested (renewable, not asked yet), not_renewable (embedded flow, or the bank kept the expiry).',
    ['within', 'renewal'],
    (g, s) => {
      for (const renewal of RENEWALS) {
        const rows = s.expiring.filter((row) => row.renewal === renewal);
        const sum = (list: ExpiringCount[]) => list.reduce((total, row) => total + row.consents, 0);
        g.set({ within: '1d', renewal }, sum(rows.filter((row) => row.withinDay)));
        g.set({ within: '7d', renewal }, sum(rows));
      }
    },
  );
  gauge(
    'bff_consent_conversion_last_day',
    `Data consents started in the last 24 hours, every merchant's, by institution (the ${INSTITUTION_LABELS} busiest; the rest as ${OTHER_INSTITUTIONS}) and outcome: started, then what became of those so far (authorised, rejected, abandoned, failed, pending: they add up to started), and first_synced (of the authorised, those with a first successful sync). GET /admin/insights/conversion has the days and medians.`,
    ['institution', 'outcome'],
    (g, s) => {
      g.reset();
      for (const counts of labelled(s.conversion))
        for (const [outcome, field] of CONVERSION_FIELDS)
          g.set({ institution: counts.institutionId, outcome }, counts[field]);
    },
  );
}
