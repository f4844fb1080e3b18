import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  type MerchantId,
  type OperatorCaller,
  type TenantCaller,
  tenantNamedByOperator,
  tenantOf,
} from '#libs/context';
import { deleteInBatches } from '#libs/database';
import { CLOCK, type Clock, DAY_RANGE_MAX_DAYS, dayRangeOf } from '#libs/time';
import { connectEndOfConsent } from './connect-funnel.js';
import {
  ConnectFunnelRepository,
  type ConnectReport,
  type FunnelFigures,
} from './connect-funnel.repository.js';
import { ConsentCallbackHooks } from './consent-callback.hooks.js';
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

/**
 * The connect funnel: `<bff-connect>`'s reports filed, and read by day and bank (ConnectFunnelRepository).
 * A data consent's return from the bank is filed here too, as the callback (or a webhook's settling) ends
 * it: the merchant's page the user comes back to may never load the component again to say so.
 */
@Injectable()
export class ConnectFunnelService implements OnModuleInit {
  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly funnel: ConnectFunnelRepository,
    private readonly hooks: ConsentCallbackHooks,
  ) {}

  onModuleInit(): void {
    this.hooks.register('ACCOUNT', {
      authorised: (tenant, consent) => this.backFromBank(tenant, consent.id, 'AUTHORIZED'),
      failed: (tenant, consent, status) => this.backFromBank(tenant, consent.id, status),
    });
  }

  /**
   * The attempt that asked for `consentId` (if `<bff-connect>` did) came back from the bank and ended as
   * the consent did: filed as the component files it, so whichever of the two comes first stands.
   */
  private async backFromBank(
    tenant: MerchantId,
    consentId: string,
    status: string,
  ): Promise<Record<string, string>> {
    const attempt = { consentId };
    await this.funnel.report(tenant, { attempt, event: 'returned' });
    await this.funnel.report(tenant, { attempt, ...connectEndOfConsent(status) });
    return {};
  }

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
