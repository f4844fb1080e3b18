import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { DatabasePool } from '#libs/database';
import { type AppLogger, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';
import type { DisabledEndpoint } from './delivery-views.js';
import { EventDeliveryRepository } from './event-delivery.repository.js';
import { EventEndpointRepository } from './event-endpoint.repository.js';
import { MerchantEventRepository } from './merchant-event.repository.js';
import { OutboxRelayService } from './outbox-relay.service.js';

/** How late a delivery must be before the sweeper assumes its job is lost (its own job may be running). */
const OVERDUE_MS = 30_000;
const BATCH = 1_000;

/**
 * The safety net of the event path: whatever a crash or a Redis outage dropped between a commit and its
 * job, this finds in Postgres and enqueues again (job ids make that harmless when nothing was dropped).
 */
@Injectable()
export class EventsSweeperService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly relay: OutboxRelayService,
    private readonly deliveries: EventDeliveryRepository,
    private readonly endpoints: EventEndpointRepository,
    private readonly events: MerchantEventRepository,
    private readonly db: DatabasePool,
    private readonly producer: JobProducerService,
  ) {}

  async sweepOutbound(now = new Date()): Promise<{ deliveries: number; relayed: number; disabled: number }> {
    const { relayed } = await this.relay.relayAll();
    const overdue = await this.deliveries.overdue(new Date(now.getTime() - OVERDUE_MS), BATCH);
    await this.producer.enqueueMany(
      'events.deliver',
      overdue.map(({ id }) => ({ deliveryId: id })),
      // A job enqueued again continues its event's trace.
      overdue.map((d) => d.traceContext),
    );
    const cutoff = new Date(now.getTime() - this.config.tuning.eventEndpointDisableAfterHours * 3_600_000);
    const disabled = await this.disableFailing(cutoff, now);
    for (const endpoint of disabled) {
      this.logger.warn(
        { endpointId: endpoint.id, merchantId: endpoint.merchantId, failingSince: endpoint.failingSince },
        'event endpoint disabled: no delivery succeeded for too long',
      );
    }
    return { deliveries: overdue.length, relayed, disabled: disabled.length };
  }

  /**
   * Disables the endpoints failing since before `cutoff` and, in the same transaction, records an
   * `endpoint.disabled` event for each: the merchant hears of it on its other endpoints (the relay sends
   * none to the endpoint itself), never one without the other.
   */
  private disableFailing(cutoff: Date, now: Date): Promise<DisabledEndpoint[]> {
    return this.db.transaction(async (client) => {
      const disabled = await this.endpoints.disableFailing(client, cutoff, now);
      await this.events.record(
        client,
        disabled.map((endpoint) => ({
          merchantId: endpoint.merchantId,
          userId: null,
          type: 'endpoint.disabled' as const,
          data: {
            endpointId: endpoint.id,
            url: endpoint.url,
            failingSince: endpoint.failingSince.toISOString(),
            disabledAt: endpoint.disabledAt.toISOString(),
            disabledReason: endpoint.disabledReason,
          },
        })),
      );
      return disabled;
    });
  }
}
