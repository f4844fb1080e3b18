import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { DelayedError } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { EventDeliveryService, EventsSweeperService } from '#libs/domain/events';
import { FanOutService, InboxSweeperService } from '#libs/domain/inbox';
import { type AppLogger, LOGGER } from '#libs/observability';
import { type JobHandlers, type JobOf, JobProcessor, QueueName } from '#libs/queue';

@Processor(QueueName.Events)
export class EventsProcessor extends JobProcessor<typeof QueueName.Events> {
  readonly queue = QueueName.Events;

  protected readonly handlers: JobHandlers<typeof QueueName.Events> = {
    'events.fan-out': (job) => this.fanOut.process(job.data.inboundEventId),
    'events.deliver': (job, token) => this.deliver(job, token),
    'events.sweep': async () => {
      const inbox = await this.inboxSweeper.sweep();
      return { inbox, ...(await this.eventsSweeper.sweepOutbound()) };
    },
  };

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) logger: AppLogger,
    private readonly fanOut: FanOutService,
    private readonly deliveries: EventDeliveryService,
    private readonly inboxSweeper: InboxSweeperService,
    private readonly eventsSweeper: EventsSweeperService,
  ) {
    super(config, logger);
  }

  /**
   * A failed attempt is not a failed job, nor is a wait for the endpoint's rate limit: the job waits for
   * its next attempt, or its turn, without spending one of its attempts.
   */
  private async deliver(job: JobOf<'events.deliver'>, token?: string) {
    const result = await this.deliveries.attempt(job.data.deliveryId);
    if (result.outcome === 'retry' || result.outcome === 'not-due' || result.outcome === 'throttled') {
      await job.moveToDelayed(result.retryAt.getTime(), token);
      throw new DelayedError();
    }
    return { outcome: result.outcome };
  }

  /** Deliveries spend their time waiting on merchants' endpoints: more of them at once than other jobs. */
  protected override concurrency(config: AppConfig): number {
    return config.events.concurrency;
  }
}
