import { Counter, type Registry } from 'prom-client';

/** How a sync run ended. */
export type SyncRunOutcome = 'succeeded' | 'failed' | 'cancelled';
const OUTCOMES: readonly SyncRunOutcome[] = ['succeeded', 'failed', 'cancelled'];

/**
 * What may label a series, as the upstream client's metrics allow (libs/upstream-client's transport): an
 * id of the institutions' own shape, and no more distinct ones than an institutions listing holds.
 */
const SAFE_LABEL = /^[A-Za-z0-9._-]{1,64}$/;
const MAX_INSTITUTIONS = 500;

/**
 * Sync runs by outcome and institution, counted where they end (the worker's sync jobs): which bank's
 * syncs keep failing (the BffInstitutionSyncsFailing alert). Institution ids come from our consents, which
 * the upstream accepted, so they are its catalogue's; any other shape, and any past the first 500 seen,
 * is `other`. No merchant, account or run label: which runs failed, and why, is in the worker's
 * `sync failed` log lines and the `sync_runs` table.
 */
export class SyncRunMetrics {
  private readonly runs: Counter<'outcome' | 'institution'>;
  private readonly institutions = new Set<string>();

  constructor(registry: Registry) {
    // Two apps in one process (tests) each have their registry; a second instance on one registry shares.
    this.runs =
      (registry.getSingleMetric('bff_sync_runs_total') as Counter<'outcome' | 'institution'> | undefined) ??
      new Counter({
        name: 'bff_sync_runs_total',
        help: 'Sync runs finished, by outcome (succeeded, failed: its attempts spent, cancelled) and by the institution of the account synced (other: an id past the label limit).',
        labelNames: ['outcome', 'institution'],
        registers: [registry],
      });
  }

  finished(outcome: SyncRunOutcome, institutionId: string): void {
    this.runs.inc({ outcome, institution: this.labelOf(institutionId) });
  }

  private labelOf(institutionId: string): string {
    const label =
      this.institutions.has(institutionId) ||
      (SAFE_LABEL.test(institutionId) && this.institutions.size < MAX_INSTITUTIONS)
        ? institutionId
        : 'other';
    if (!this.institutions.has(label)) {
      this.institutions.add(label);
      // Every outcome of a newly seen institution starts at 0: rate() and increase() count nothing for a
      // series' first sample, so a bank's first failure after its successes would otherwise go unseen.
      for (const outcome of OUTCOMES) this.runs.inc({ outcome, institution: label }, 0);
    }
    return label;
  }
}
