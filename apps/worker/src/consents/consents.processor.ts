import { Processor } from '@nestjs/bullmq';
import { Inject } from '@nestjs/common';
import { UnrecoverableError } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { tenantOfRecord } from '#libs/context';
import {
  ConsentExpiryScanService,
  ConsentReconciliationService,
  ConsentSettleService,
  EmbeddedConsentPollService,
} from '#libs/domain/consents';
import { DomainError, ErrorCode } from '#libs/errors';
import { type AppLogger, LOGGER } from '#libs/observability';
import { type JobHandlers, JobProcessor, QueueName } from '#libs/queue';

@Processor(QueueName.Consents)
export class ConsentsProcessor extends JobProcessor<typeof QueueName.Consents> {
  readonly queue = QueueName.Consents;

  protected readonly handlers: JobHandlers<typeof QueueName.Consents> = {
    'consents.poll-embedded': async (job) => {
      try {
        // The job's creation starts the deadline, so a retried attempt does not extend it.
        const { consentId, userAddress } = job.data;
        return await this.embedded.pollEmbedded(
          tenantOfRecord(job.data),
          consentId,
          job.timestamp,
          userAddress,
        );
      } catch (error) {
        // A consent that is gone (erased user, wrong payload) will not come back by retrying.
        if (error instanceof DomainError && error.code === ErrorCode.NOT_FOUND) {
          throw new UnrecoverableError(error.message);
        }
        throw error;
      }
    },
    'consents.settle': (job) => this.settle.settle(tenantOfRecord(job.data), job.data.consentId),
    'consents.scan-expiry': () => this.expiryScan.scanExpiry(),
    'consents.reconcile': () => this.reconciliation.reconcile(),
  };

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(LOGGER) logger: AppLogger,
    private readonly embedded: EmbeddedConsentPollService,
    private readonly expiryScan: ConsentExpiryScanService,
    private readonly reconciliation: ConsentReconciliationService,
    private readonly settle: ConsentSettleService,
  ) {
    super(config, logger);
  }
}
