import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { InstitutionsService } from '#libs/domain/institutions';
import { LOGGER, type AppLogger } from '#libs/observability';
import { JOB_DEFINITIONS, JobProcessor, JobProducer, QueueName, type JobHandlers } from '#libs/queue';

/** The institutions refresh's schedule: one scheduler id, so every worker's upsert names the same one. */
export const INSTITUTIONS_SCHEDULER_ID = 'maintenance.refresh-institutions';

@Processor(QueueName.Maintenance)
export class MaintenanceProcessor extends JobProcessor<typeof QueueName.Maintenance> {
  readonly queue = QueueName.Maintenance;

  protected readonly handlers: JobHandlers<typeof QueueName.Maintenance> = {
    'maintenance.ping': () => Promise.resolve({ pid: process.pid, receivedAt: new Date().toISOString() }),
    'maintenance.refresh-institutions': () => this.institutions.refreshInstitutions(),
  };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: AppLogger,
    private readonly institutions: InstitutionsService,
    private readonly producer: JobProducer,
  ) {
    super(config, logger);
  }

  override async onApplicationBootstrap(): Promise<void> {
    await super.onApplicationBootstrap();
    if (this.config.sync.institutionsRefreshMinutes === 0) return;
    await this.worker.waitUntilReady();
    await this.producer.queueFor('maintenance.refresh-institutions').upsertJobScheduler(
      INSTITUTIONS_SCHEDULER_ID,
      { every: this.config.sync.institutionsRefreshMinutes * 60_000 },
      {
        name: 'maintenance.refresh-institutions',
        data: {},
        opts: JOB_DEFINITIONS['maintenance.refresh-institutions'].options,
      },
    );
  }
}
