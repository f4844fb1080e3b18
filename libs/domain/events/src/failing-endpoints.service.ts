import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { DatabasePool } from '#libs/database';
import { type AppLogger, LOGGER } from '#libs/observability';
import type { DisabledEndpoint } from './delivery-views.js';
import { EventEndpointRepository } from './event-endpoint.repository.js';
import { MerchantEventRepository } from './merchant-event.repository.js';
import type { NewMerchantEvent } from './merchant-event.statements.js';

/** Disables the event endpoints no delivery has succeeded to for too long (the sweeper's second round). */
@Injectable()
export class FailingEndpointsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly endpoints: EventEndpointRepository,
    private readonly events: MerchantEventRepository,
    private readonly db: DatabasePool,
  ) {}

  /**
   * Disables the endpoints failing since before the configured hours and, in the same transaction, records
   * an `endpoint.disabled` event for each: the merchant hears of it on its other endpoints (the relay sends
   * none to the endpoint itself), never one without the other. Answers how many it disabled.
   */
  async disable(now: Date): Promise<number> {
    const cutoff = new Date(now.getTime() - this.config.tuning.eventEndpointDisableAfterHours * 3_600_000);
    const disabled = await this.db.transaction(async (client) => {
      const found = await this.endpoints.disableFailing(client, cutoff, now);
      await this.events.record(client, found.map(disabledEvent));
      return found;
    });
    for (const endpoint of disabled) {
      this.logger.warn(
        { endpointId: endpoint.id, merchantId: endpoint.merchantId, failingSince: endpoint.failingSince },
        'event endpoint disabled: no delivery succeeded for too long',
      );
    }
    return disabled.length;
  }
}

const disabledEvent = (endpoint: DisabledEndpoint): NewMerchantEvent => ({
  merchantId: endpoint.merchantId,
  userId: null,
  type: 'endpoint.disabled',
  data: {
    endpointId: endpoint.id,
    url: endpoint.url,
    failingSince: endpoint.failingSince.toISOString(),
    disabledAt: endpoint.disabledAt.toISOString(),
    disabledReason: endpoint.disabledReason,
  },
});
