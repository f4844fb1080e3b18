import { Inject, Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { type AppLogger, LOGGER } from '#libs/observability';
import type { Consent as UpstreamConsent } from '#libs/upstream-client';
import type { StoredConsent } from './consent.repository.js';
import { ConsentAuthoriserService } from './consent-authoriser.service.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { ConsentStatus, FINAL_FAILURE_STATUSES } from './consent-status.js';

/**
 * The bank's own record of a consent whose callback never answered, taken as the callback would have:
 * for a spent callback (ConsentSettleService) and a user who never came back (UnreturnedConsentsService).
 */
@Injectable()
export class ConsentBankAnswerService {
  constructor(
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly state: ConsentStateRepository,
    private readonly authoriser: ConsentAuthoriserService,
  ) {}

  /** Stores an approval the bank holds, or fails an authorisation it ended; one still waiting stays. */
  async apply(
    merchantId: MerchantId,
    consent: StoredConsent,
    answer: UpstreamConsent,
    subApplication: string | undefined,
    why: string,
  ): Promise<void> {
    if (answer.status === ConsentStatus.Authorised && answer.consentToken) {
      const stored = await this.authoriser.store(merchantId, consent, answer, subApplication);
      this.logger.info(
        { consentId: consent.id, applied: stored.applied },
        `consent: an approval finished from the bank (${why})`,
      );
      return;
    }
    if ((FINAL_FAILURE_STATUSES as readonly string[]).includes(answer.status)) {
      await this.state.markFailed(
        merchantId,
        consent.id,
        answer.status as ConsentStatus,
        `BANK_${answer.status}`.slice(0, 64),
        `The bank ended the authorisation; ${why}.`,
      );
    }
  }
}
