import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { EmbeddedConsentsService } from '#libs/domain/consents';
import { DomainError, ErrorCode } from '#libs/errors';
import { LOGGER, type AppLogger } from '#libs/observability';
import { QueueName, type JobOf, type JobResult } from '#libs/queue';
import { logConnectionErrors } from '#libs/redis';

@Processor(QueueName.Consents)
export class ConsentsProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly consents: EmbeddedConsentsService,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    // @Processor options are static; concurrency comes from configuration.
    this.worker.concurrency = this.config.sync.workerConcurrency;
    logConnectionErrors(this.worker, this.logger, `worker:${QueueName.Consents}`);
  }

  async process(job: Job): Promise<JobResult<'consents.poll-embedded'>> {
    switch (job.name) {
      case 'consents.poll-embedded':
        return this.pollEmbedded(job as JobOf<'consents.poll-embedded'>);
      default:
        // A job this worker does not know will never succeed here; retrying it only delays the alarm.
        throw new UnrecoverableError(`Unknown job ${job.name} on queue ${QueueName.Consents}`);
    }
  }

  private async pollEmbedded(
    job: JobOf<'consents.poll-embedded'>,
  ): Promise<JobResult<'consents.poll-embedded'>> {
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
  }
}
