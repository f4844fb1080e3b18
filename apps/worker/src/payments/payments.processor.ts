import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { PaymentStatusPoller } from '#libs/domain/payments';
import { type AppLogger, LOGGER } from '#libs/observability';
import { type JobHandlers, JobProcessor, QueueName } from '#libs/queue';

@Processor(QueueName.Payments)
export class PaymentsProcessor extends JobProcessor<typeof QueueName.Payments> {
  readonly queue = QueueName.Payments;

  protected readonly handlers: JobHandlers<typeof QueueName.Payments> = {
    'payments.poll-status': () => this.poller.pollDue(),
  };

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) logger: AppLogger,
    private readonly poller: PaymentStatusPoller,
  ) {
    super(config, logger);
  }
}
