import { Inject, Injectable } from '@nestjs/common';
import { type OperatorCaller, type TenantCaller, tenantNamedByOperator, tenantOf } from '#libs/context';
import { deleteInBatches } from '#libs/database';
import { CLOCK, type Clock, DAY_RANGE_MAX_DAYS, dayRangeOf } from '#libs/time';
import {
  ConnectFunnelRepository,
  type ConnectReport,
  type FunnelFigures,
} from './connect-funnel.repository.js';
import { CONVERSION_DEFAULT_DAYS, type ConversionQuery } from './consent-conversion.service.js';
import { UNRETURNED_AFTER_MS } from './unreturned-consents.service.js';

/**
 * An attempt with no end is abandoned once quiet as long as a redirect consent's user can still come back
 * from the bank: past it, its consent's state is spent.
 */
export const CONNECT_IDLE_MS = UNRETURNED_AFTER_MS;

/** An attempt is kept as long as a read may still ask for its day (DAY_RANGE_MAX_DAYS back), and a day. */
export const CONNECT_ATTEMPT_KEPT_DAYS = DAY_RANGE_MAX_DAYS + 1;

export type FunnelView = { from: string; to: string } & FunnelFigures;

/** The connect funnel: `<bff-connect>`'s reports filed, and read by day and bank (ConnectFunnelRepository). */
@Injectable()
export class ConnectFunnelService {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly funnel: ConnectFunnelRepository,
  ) {}

  async report(caller: TenantCaller, report: ConnectReport): Promise<void> {
    await this.funnel.report(tenantOf(caller), report);
  }

  async ofMerchant(caller: TenantCaller, query: ConversionQuery): Promise<FunnelView> {
    const range = this.rangeOf(query);
    return { from: range.from, to: range.to, ...(await this.funnel.ofMerchant(tenantOf(caller), range)) };
  }

  /** Every merchant's attempts together, or one merchant's when `merchantId` names it. */
  async forOperator(
    operator: OperatorCaller,
    query: ConversionQuery & { merchantId?: string },
  ): Promise<FunnelView> {
    const range = this.rangeOf(query);
    const figures = query.merchantId
      ? await this.funnel.ofMerchant(tenantNamedByOperator(operator, query.merchantId), range)
      : await this.funnel.acrossMerchants(operator, range);
    return { from: range.from, to: range.to, ...figures };
  }

  /** Retention: attempts opened before any read can reach. */
  async prune(now = this.clock.now()): Promise<{ connectAttempts: number }> {
    const cutoff = new Date(now.getTime() - CONNECT_ATTEMPT_KEPT_DAYS * 86_400_000);
    return {
      connectAttempts: await deleteInBatches((limit) => this.funnel.deleteOpenedBefore(cutoff, limit)),
    };
  }

  /** The days asked for, as conversion's (the same defaults and limits), and the quiet cut-off now. */
  private rangeOf(query: ConversionQuery) {
    const now = this.clock.now();
    const days = dayRangeOf(query, now, CONVERSION_DEFAULT_DAYS);
    return { ...days, quietSince: new Date(now.getTime() - CONNECT_IDLE_MS) };
  }
}
