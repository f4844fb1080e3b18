import { Injectable } from '@nestjs/common';
import { JobProducerService } from '#libs/queue';
import { EventDeliveryRepository } from './event-delivery.repository.js';
import { FailingEndpointsService } from './failing-endpoints.service.js';
import { OutboxRelayService } from './outbox-relay.service.js';

/** How late a delivery must be before the sweeper assumes its job is lost (its own job may be running). */
const OVERDUE_MS = 30_000;
const BATCH = 1_000;

/**
 * The safety net of the event path: whatever a crash or a Redis outage dropped between a commit and its
 * job, this finds in Postgres and enqueues again (job ids make that harmless when nothing was dropped);
 * then the endpoints failing for too long are disabled.
 */
@Injectable()
export class EventsSweeperService {
  constructor(
    private readonly relay: OutboxRelayService,
    private readonly deliveries: EventDeliveryRepository,
    private readonly producer: JobProducerService,
    private readonly failing: FailingEndpointsService,
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
    const disabled = await this.failing.disable(now);
    return { deliveries: overdue.length, relayed, disabled };
  }
}
