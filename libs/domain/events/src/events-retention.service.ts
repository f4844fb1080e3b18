import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { deleteInBatches } from '#libs/database';
import { CLOCK, type Clock } from '#libs/time';
import { MerchantEventRepository } from './merchant-event.repository.js';
import { OutboxRelayStateRepository } from './outbox-relay-state.repository.js';

/**
 * Removes relayed events older than EVENT_RETENTION_DAYS, with their delivery log, in small batches, and
 * records how far it went so a stream resumed from before that is told (410 EVENTS_EXPIRED) rather than
 * given a silent gap.
 */
@Injectable()
export class EventsRetentionService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly events: MerchantEventRepository,
    private readonly relayState: OutboxRelayStateRepository,
  ) {}

  async prune(): Promise<{ events: number }> {
    const cutoff = new Date(this.clock.now().getTime() - this.config.retention.eventDays * 86_400_000);
    const events = await deleteInBatches(async (limit) => {
      const batch = await this.events.deleteRelayedBefore(cutoff, limit);
      // Recorded per batch: a sweep that dies half-way has still said what it removed.
      if (batch.through !== null) await this.relayState.recordPrunedThrough(batch.through);
      return batch.deleted;
    });
    return { events };
  }
}
