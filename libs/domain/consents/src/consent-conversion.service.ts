import { Inject, Injectable } from '@nestjs/common';
import { type OperatorCaller, type TenantCaller, tenantNamedByOperator, tenantOf } from '#libs/context';
import { invalidRequest } from '#libs/errors';
import { CLOCK, type Clock } from '#libs/time';
import {
  ConsentConversionRepository,
  type ConversionFigures,
  type ConversionRange,
} from './consent-conversion.repository.js';

const DAY_MS = 86_400_000;
/** The range asked for when none is: the last 30 days, today (UTC) included. */
export const CONVERSION_DEFAULT_DAYS = 30;
/** The longest range one answer covers: a year of days (a row a day and institution). */
export const CONVERSION_MAX_DAYS = 366;

export interface ConversionQuery {
  from?: string;
  to?: string;
}

export type ConversionView = ConversionRange & ConversionFigures;

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

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
  private rangeOf({ from, to }: ConversionQuery): ConversionRange {
    const last = to ?? dayOf(this.clock.now());
    const first = from ?? dayOf(new Date(Date.parse(last) - (CONVERSION_DEFAULT_DAYS - 1) * DAY_MS));
    const days = (Date.parse(last) - Date.parse(first)) / DAY_MS + 1;
    if (days < 1) throw invalidRequest([{ field: 'from', issue: 'from must not be after to' }]);
    if (days > CONVERSION_MAX_DAYS) {
      throw invalidRequest([
        {
          field: 'from',
          issue: `from and to must be at most ${CONVERSION_MAX_DAYS} days apart, both included`,
        },
      ]);
    }
    return { from: first, to: last };
  }
}
