import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { LOGGER, type AppLogger } from '#libs/observability';
import { logConnectionErrors } from '#libs/redis';
import { QueueName, type JobOf, type JobResult } from '#libs/queue';

@Processor(QueueName.Maintenance)
export class MaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    super();
  }

  onApplicationBootstrap(): void {
    // @Processor options are static; concurrency comes from configuration.
    this.worker.concurrency = this.config.sync.workerConcurrency;
    logConnectionErrors(this.worker, this.logger, `worker:${QueueName.Maintenance}`);
  }

  async process(job: Job): Promise<JobResult<'maintenance.ping'>> {
    switch (job.name) {
      case 'maintenance.ping':
        return this.ping(job as JobOf<'maintenance.ping'>);
      default:
        // A job this worker does not know will never succeed here; retrying it only delays the alarm.
        throw new UnrecoverableError(`Unknown job ${job.name} on queue ${QueueName.Maintenance}`);
    }
  }

  private ping(_job: JobOf<'maintenance.ping'>): Promise<JobResult<'maintenance.ping'>> {
    return Promise.resolve({ pid: process.pid, receivedAt: new Date().toISOString() });
  }
}
