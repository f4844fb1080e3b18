import { Inject, Injectable } from '@nestjs/common';
import { DatabasePool, ReplicaReads } from '#libs/database';
import { type AppLogger, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';
import { type EventWakeup, EventWakeups } from '#libs/redis';
import { EventDeliveryRepository } from './event-delivery.repository.js';
import { MerchantEventRepository } from './merchant-event.repository.js';
import { OutboxRelayStateRepository } from './outbox-relay-state.repository.js';

const BATCH = 500;

export interface RelayBatch {
  events: number;
  /** Each with the trace that recorded its event: the delivery's job continues it. */
  deliveries: { id: string; traceContext: string | null }[];
  wakeup: EventWakeup;
  /** The merchants whose events were numbered: what their endpoints and streams learn of next. */
  merchants: Set<string>;
}

/**
 * Moves committed outbox events on: numbers them in commit order (the stream position SSE resumes from),
 * makes a delivery per subscribed endpoint, then enqueues the deliveries and wakes the streams. One relay
 * runs at a time across every worker (the relay-state row's lock, skipped, not waited for, by the others);
 * everything after the commit is a wake-up the sweeper repeats if it is lost.
 */
@Injectable()
export class OutboxRelayService {
  constructor(
    private readonly db: DatabasePool,
    private readonly state: OutboxRelayStateRepository,
    private readonly events: MerchantEventRepository,
    private readonly deliveries: EventDeliveryRepository,
    private readonly producer: JobProducerService,
    private readonly wakeups: EventWakeups,
    private readonly reads: ReplicaReads,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  /**
   * Relays until nothing is left. `contended`: another relay held the lock, so this one stopped; the caller
   * tries again shortly, as the other may have looked before this caller's events committed.
   */
  async relayAll(): Promise<{ relayed: number; contended: boolean }> {
    let total = 0;
    for (;;) {
      const batch = await this.relayBatch();
      if (!batch) return { relayed: total, contended: true };
      total += batch.events;
      // Before any endpoint or stream hears of these events: their merchants' reads must see what they say.
      await this.reads.fence(batch.merchants);
      await Promise.all([
        this.producer.enqueueMany(
          'events.deliver',
          batch.deliveries.map(({ id }) => ({ deliveryId: id })),
          batch.deliveries.map((d) => d.traceContext),
        ),
        this.wakeups.publish(batch.wakeup),
      ]);
      if (batch.events < BATCH) return { relayed: total, contended: false };
    }
  }

  /** One transaction: null when another relay is at work. */
  private relayBatch(): Promise<RelayBatch | null> {
    return this.db.transaction(async (client) => {
      const last = await this.state.lockHighWater(client);
      if (last === null) return null;
      const numbered = await this.events.numberUnrelayed(client, last, BATCH);
      if (numbered.length === 0) return { events: 0, deliveries: [], wakeup: {}, merchants: new Set() };
      const created = await this.deliveries.createForEvents(
        client,
        numbered.map((e) => e.id),
      );
      const traceOf = new Map(numbered.map((e) => [e.id, e.traceContext]));
      const deliveries = created.map((d) => ({ id: d.id, traceContext: traceOf.get(d.eventId) ?? null }));
      await this.state.advance(client, numbered[numbered.length - 1].streamSeq);
      const wakeup: EventWakeup = {};
      for (const event of numbered) if (event.userId) wakeup[event.userId] = event.streamSeq;
      this.logger.debug({ events: numbered.length, deliveries: deliveries.length }, 'outbox relayed');
      const merchants = new Set(numbered.map((e) => e.merchantId));
      return { events: numbered.length, deliveries, wakeup, merchants };
    });
  }
}
