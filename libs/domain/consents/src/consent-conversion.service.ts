import { Inject, Injectable } from '@nestjs/common';
import { type OperatorCaller, type TenantCaller, tenantNamedByOperator, tenantOf } from '#libs/context';
import { CLOCK, type Clock, dayRangeOf } from '#libs/time';
import {
  ConsentConversionRepository,
  type ConversionFigures,
  type ConversionRange,
} from './consent-conversion.repository.js';

/** The range asked for when none is: the last 30 days, today (UTC) included. */
export const CONVERSION_DEFAULT_DAYS = 30;

export interface ConversionQuery {
  from?: string;
  to?: string;
}

export type ConversionView = ConversionRange & ConversionFigures;

/** Connection conversion by institution and day (ConsentConversionRepository says how each is counted). */
@Injectable()
export class ConsentConversionService {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly conversion: ConsentConversionRepository,
  ) {}

  async ofMerchant(caller: TenantCaller, query: ConversionQuery): Promise<ConversionView> {
    const range = this.rangeOf(query);
    return { ...range, ...(await this.conversion.ofMerchant(tenantOf(caller), range)) };
  }

  /** Every merchant's consents together, or one merchant's when `merchantId` names it. */
  async forOperator(
    operator: OperatorCaller,
    query: ConversionQuery & { merchantId?: string },
  ): Promise<ConversionView> {
    const range = this.rangeOf(query);
    const figures = query.merchantId
      ? await this.conversion.ofMerchant(tenantNamedByOperator(operator, query.merchantId), range)
      : await this.conversion.acrossMerchants(operator, range);
    return { ...range, ...figures };
  }

  /** The days asked for (the input checked each is a calendar day), defaulted and held to the limits. */
  private rangeOf(query: ConversionQuery): ConversionRange {
    return dayRangeOf(query, this.clock.now(), CONVERSION_DEFAULT_DAYS);
  }
}
