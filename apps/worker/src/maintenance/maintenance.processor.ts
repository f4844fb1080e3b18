import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { DelayedError } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { InstitutionsService, UpstreamUnreachableError } from '#libs/domain/institutions';
import { type AppLogger, LOGGER } from '#libs/observability';
import { type JobHandlers, JobProcessor, QueueName } from '#libs/queue';
import { RetentionService } from './retention.service.js';

/** How long a refresh waits for an upstream that does not answer before it fails as usual. */
const WAIT_FOR_UPSTREAM_MS = 10 * 60_000;

@Processor(QueueName.Maintenance)
export class MaintenanceProcessor extends JobProcessor<typeof QueueName.Maintenance> {
  readonly queue = QueueName.Maintenance;

  protected readonly handlers: JobHandlers<typeof QueueName.Maintenance> = {
    'maintenance.ping': () => Promise.resolve({ pid: process.pid, receivedAt: new Date().toISOString() }),
    'maintenance.retention': () => this.retention.prune(),
    'maintenance.refresh-institutions': async (job, token) => {
      try {
        return await this.institutions.refreshInstitutions();
      } catch (error) {
        // The upstream not answering at all is, at a cold start, the upstream not up yet: the job waits
        // for it (an attempt is not spent, so the refresh does not end FAILED) for as long as a refresh
        // stays useful, then fails as any other.
        if (!(error instanceof UpstreamUnreachableError) || Date.now() - job.timestamp > WAIT_FOR_UPSTREAM_MS)
          throw error;
        const delayMs = Math.min(1_000 * 2 ** Math.max(0, job.attemptsStarted - 1), 30_000);
        this.logger.warn(
          { upstream: this.config.upstream.baseUrl, retryInMs: delayMs },
          `waiting for the upstream at ${this.config.upstream.baseUrl}`,
        );
        await job.moveToDelayed(Date.now() + delayMs, token);
        throw new DelayedError();
      }
    },
  };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(LOGGER) logger: AppLogger,
    private readonly institutions: InstitutionsService,
    private readonly retention: RetentionService,
  ) {
    super(config, logger);
  }
}
