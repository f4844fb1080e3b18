import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { deleteInBatches } from '#libs/database';
import { CLOCK, type Clock } from '#libs/time';
import { InboundEventRepository } from './inbound-event.repository.js';

/**
 * Removes processed upstream webhooks older than `tuning.inboxRetentionDays`, in small batches. A duplicate of
 * a removed event is no longer recognised; the upstream's retries end long before (and its signatures
 * carry a timestamp the receiver refuses after `tuning.webhookToleranceSeconds`).
 */
@Injectable()
export class InboxRetentionService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly inbound: InboundEventRepository,
  ) {}

  async prune(): Promise<{ inbound: number }> {
    const cutoff = new Date(this.clock.now().getTime() - this.config.tuning.inboxRetentionDays * 86_400_000);
    return { inbound: await deleteInBatches((limit) => this.inbound.deleteProcessedBefore(cutoff, limit)) };
  }
}
