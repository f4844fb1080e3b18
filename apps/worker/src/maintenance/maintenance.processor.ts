import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { InstitutionsService } from '#libs/domain/institutions';
import { type AppLogger, LOGGER } from '#libs/observability';
import { type JobHandlers, JobProcessor, QueueName } from '#libs/queue';

@Processor(QueueName.Maintenance)
export class MaintenanceProcessor extends JobProcessor<typeof QueueName.Maintenance> {
  readonly queue = QueueName.Maintenance;

  protected readonly handlers: JobHandlers<typeof QueueName.Maintenance> = {
    'maintenance.ping': () => Promise.resolve({ pid: process.pid, receivedAt: new Date().toISOString() }),
    'maintenance.refresh-institutions': () => this.institutions.refreshInstitutions(),
  };

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) logger: AppLogger,
    private readonly institutions: InstitutionsService,
  ) {
    super(config, logger);
  }
}
