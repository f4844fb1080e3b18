import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { PaymentStatusPoller } from '#libs/domain/payments';
import { LOGGER, type AppLogger } from '#libs/observability';
import { JOB_DEFINITIONS, JobProcessor, JobProducer, QueueName, type JobHandlers } from '#libs/queue';

/** The status poll's schedule: one scheduler id, so every worker's upsert names the same one schedule. */
export const PAYMENT_STATUS_POLL_SCHEDULER_ID = 'payments.poll-status';

@Processor(QueueName.Payments)
export class PaymentsProcessor extends JobProcessor<typeof QueueName.Payments> {
  readonly queue = QueueName.Payments;

  protected readonly handlers: JobHandlers<typeof QueueName.Payments> = {
    'payments.poll-status': () => this.poller.pollDue(),
  };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: AppLogger,
    private readonly poller: PaymentStatusPoller,
    private readonly producer: JobProducer,
  ) {
    super(config, logger);
  }

  override async onApplicationBootstrap(): Promise<void> {
    await super.onApplicationBootstrap();
    const seconds = this.config.payments.statusPollSeconds;
    if (seconds === 0) return;
    await this.worker.waitUntilReady();
    await this.producer
      .queueFor('payments.poll-status')
      .upsertJobScheduler(
        PAYMENT_STATUS_POLL_SCHEDULER_ID,
        { every: seconds * 1000 },
        { name: 'payments.poll-status', data: {}, opts: JOB_DEFINITIONS['payments.poll-status'].options },
      );
  }
}
