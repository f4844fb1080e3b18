import { Injectable } from '@nestjs/common';
import type { MerchantId, OperatorCaller } from '#libs/context';
import { DatabasePool } from '#libs/database';
import { type DayRange, instantsOf } from '#libs/time';
import { type HealthRow, INSTITUTION_HEALTH_SQL } from './institution-health.statements.js';

/** Buckets of the trend: an hour or a day (UTC), as `date_trunc` names them. */
export type HealthBucket = 'hour' | 'day';

/** Attempts to one institution (or several) and how they went: `errorRate` is errors / calls. */
export interface HealthFigures {
  calls: number;
  errors: number;
  errorRate: number;
  /** The 95th percentile of the attempts' durations (percentile_disc: one attempt's duration). */
  p95DurationMs: number;
}

export type InstitutionHealth = HealthFigures & { institutionId: string };
/** One bucket's attempts to one institution, `start` the bucket's first instant (ISO, UTC). */
export type InstitutionHealthBucket = InstitutionHealth & { start: string };

export interface HealthOfRange {
  institutions: InstitutionHealth[];
  buckets: InstitutionHealthBucket[];
}

const rated = ({ start: _, ...row }: HealthRow): InstitutionHealth => ({
  ...row,
  errorRate: row.errors / row.calls,
});

/** The statement's two grouping sets apart: the range's figures (no start), then the buckets. */
function healthOf(rows: HealthRow[]): HealthOfRange {
  const health: HealthOfRange = { institutions: [], buckets: [] };
  for (const row of rows) {
    if (row.start === null) health.institutions.push(rated(row));
    else health.buckets.push({ start: row.start, ...rated(row) });
  }
  return health;
}

/**
 * Reads institution health from the upstream call log (INSTITUTION_HEALTH_SQL says what counts): a
 * merchant's own calls, every merchant's for the operator, and the last hour's for the worker's gauges.
 */
@Injectable()
export class InstitutionHealthRepository {
  constructor(private readonly db: DatabasePool) {}

  async ofMerchant(merchantId: MerchantId, range: DayRange, bucket: HealthBucket): Promise<HealthOfRange> {
    const { start, end } = instantsOf(range);
    return healthOf(
      await this.db.rows({ ...INSTITUTION_HEALTH_SQL.ofMerchant, values: [start, end, bucket, merchantId] }),
    );
  }

  async acrossMerchants(
    _operator: OperatorCaller,
    range: DayRange,
    bucket: HealthBucket,
  ): Promise<HealthOfRange> {
    const { start, end } = instantsOf(range);
    return healthOf(
      await this.db.rows({ ...INSTITUTION_HEALTH_SQL.acrossMerchants, values: [start, end, bucket] }),
    );
  }

  /** Every merchant's attempts since `since`, by institution: for the worker's metrics, no merchant in them. */
  async since(since: Date): Promise<InstitutionHealth[]> {
    return (await this.db.rows({ ...INSTITUTION_HEALTH_SQL.since, values: [since] })).map(rated);
  }

  /** Every merchant's attempts since `since` to the institutions not `named`, together; null when none. */
  async sinceExcept(since: Date, named: readonly string[]): Promise<HealthFigures | null> {
    const [row] = await this.db.rows({ ...INSTITUTION_HEALTH_SQL.sinceExcept, values: [since, named] });
    if (!row || row.calls === 0 || row.p95DurationMs === null) return null;
    return { ...row, p95DurationMs: row.p95DurationMs, errorRate: row.errors / row.calls };
  }
}
