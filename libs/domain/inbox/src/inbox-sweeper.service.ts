import { Injectable } from '@nestjs/common';
import { JobProducerService } from '#libs/queue';
import { InboundEventRepository } from './inbound-event.repository.js';

/** A stored event's fan-out job is normally enqueued at once: older than this, it was lost. */
const STALE_MS = 30_000;
const BATCH = 1_000;

/** Re-enqueues inbox events that were stored but never fanned out (Redis down, api killed after the commit). */
@Injectable()
export class InboxSweeperService {
  constructor(
    private readonly inbox: InboundEventRepository,
    private readonly producer: JobProducerService,
  ) {}

  async sweep(now = new Date()): Promise<number> {
    const stale = await this.inbox.stale(new Date(now.getTime() - STALE_MS), BATCH);
    await this.producer.enqueueMany(
      'events.fan-out',
      stale.map(({ id }) => ({ inboundEventId: id })),
      // A job enqueued again continues the trace of the request that received its event.
      stale.map((e) => e.traceContext),
    );
    return stale.length;
  }
}
