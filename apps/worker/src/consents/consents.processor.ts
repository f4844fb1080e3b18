import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { UnrecoverableError } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ConsentLifecycleService, EmbeddedConsentsService } from '#libs/domain/consents';
import { DomainError, ErrorCode } from '#libs/errors';
import { LOGGER, type AppLogger } from '#libs/observability';
import {
  JOB_DEFINITIONS,
  JobProcessor,
  JobProducer,
  QueueName,
  type JobHandlers,
  type JobName,
} from '#libs/queue';

/** The lifecycle's schedules: fixed ids, so every worker's upsert names the same one schedule. */
export const EXPIRY_SCAN_SCHEDULER_ID = 'consents.scan-expiry';
export const RECONCILE_SCHEDULER_ID = 'consents.reconcile';

@Processor(QueueName.Consents)
export class ConsentsProcessor extends JobProcessor<typeof QueueName.Consents> {
  readonly queue = QueueName.Consents;

  protected readonly handlers: JobHandlers<typeof QueueName.Consents> = {
    'consents.poll-embedded': async (job) => {
      try {
        // The job's creation starts the deadline, so a retried attempt does not extend it.
        return await this.consents.pollEmbedded(job.data.merchantId, job.data.consentId, job.timestamp);
      } catch (error) {
        // A consent that is gone (erased user, wrong payload) will not come back by retrying.
        if (error instanceof DomainError && error.code === ErrorCode.NOT_FOUND) {
          throw new UnrecoverableError(error.message);
        }
        throw error;
      }
    },
    'consents.scan-expiry': () => this.lifecycle.scanExpiry(),
    'consents.reconcile': () => this.lifecycle.reconcile(),
  };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: AppLogger,
    private readonly consents: EmbeddedConsentsService,
    private readonly lifecycle: ConsentLifecycleService,
    private readonly producer: JobProducer,
  ) {
    super(config, logger);
  }

  override async onApplicationBootstrap(): Promise<void> {
    await super.onApplicationBootstrap();
    await this.schedule(
      'consents.scan-expiry',
      EXPIRY_SCAN_SCHEDULER_ID,
      this.config.consents.expiryScanMinutes,
    );
    await this.schedule('consents.reconcile', RECONCILE_SCHEDULER_ID, this.config.consents.reconcileMinutes);
  }

  /** Every worker upserts the same scheduler: once per interval for the deployment; 0 leaves it alone. */
  private async schedule(name: JobName, id: string, minutes: number): Promise<void> {
    if (minutes === 0) return;
    await this.worker.waitUntilReady();
    await this.producer
      .queueFor(name)
      .upsertJobScheduler(
        id,
        { every: minutes * 60_000 },
        { name, data: {}, opts: JOB_DEFINITIONS[name].options },
      );
  }
}
