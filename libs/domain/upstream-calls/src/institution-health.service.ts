import { Inject, Injectable } from '@nestjs/common';
import { type OperatorCaller, type TenantCaller, tenantNamedByOperator, tenantOf } from '#libs/context';
import { CLOCK, type Clock, type DayRange, dayRangeOf, daysIn } from '#libs/time';
import {
  type HealthBucket,
  type HealthOfRange,
  InstitutionHealthRepository,
} from './institution-health.repository.js';

/** The range asked for when none is: the last 7 days, today (UTC) included. */
export const HEALTH_DEFAULT_DAYS = 7;
/**
 * Ranges of up to this many days are bucketed by the hour (at most 168 buckets an institution), longer
 * ones by the day: an hour is what a bank's incident lasts, and a day enough to see a month's trend.
 */
export const HEALTH_HOURLY_MAX_DAYS = 7;

export interface HealthQuery {
  from?: string;
  to?: string;
}

export type HealthView = DayRange & { bucket: HealthBucket } & HealthOfRange;

/** Institution health, Plaid's: error rate and p95 latency of our calls to each bank (docs/insights.md). */
@Injectable()
export class InstitutionHealthService {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly health: InstitutionHealthRepository,
  ) {}

  async ofMerchant(caller: TenantCaller, query: HealthQuery): Promise<HealthView> {
    const { range, bucket } = this.rangeOf(query);
    return { ...range, bucket, ...(await this.health.ofMerchant(tenantOf(caller), range, bucket)) };
  }

  /** Every merchant's calls together, or one merchant's when `merchantId` names it. */
  async forOperator(
    operator: OperatorCaller,
    query: HealthQuery & { merchantId?: string },
  ): Promise<HealthView> {
    const { range, bucket } = this.rangeOf(query);
    const figures = query.merchantId
      ? await this.health.ofMerchant(tenantNamedByOperator(operator, query.merchantId), range, bucket)
      : await this.health.acrossMerchants(operator, range, bucket);
    return { ...range, bucket, ...figures };
  }

  private rangeOf(query: HealthQuery): { range: DayRange; bucket: HealthBucket } {
    const range = dayRangeOf(query, this.clock.now(), HEALTH_DEFAULT_DAYS);
    return { range, bucket: daysIn(range) <= HEALTH_HOURLY_MAX_DAYS ? 'hour' : 'day' };
  }
}
