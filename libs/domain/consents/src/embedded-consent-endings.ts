import { Inject, Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { type AppLogger, LOGGER } from '#libs/observability';
import type { StoredConsent } from './consent.repository.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import type { ConsentStatus } from './consent-status.js';

/** How an embedded consent ends without an authorisation: the steps' and the poll's one way to say it. */
@Injectable()
export class EmbeddedConsentEndings {
  constructor(
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly state: ConsentStateRepository,
  ) {}

  /** The bank ended the authorisation (rejected, failed, expired): the consent fails with its word. */
  endedByBank(merchantId: MerchantId, consent: StoredConsent, status: ConsentStatus) {
    return this.fail(
      merchantId,
      consent,
      status,
      `EMBEDDED_${status}`,
      'The institution ended the authorisation',
    );
  }

  async fail(
    merchantId: MerchantId,
    consent: StoredConsent,
    status: ConsentStatus,
    code: string,
    message: string,
  ) {
    const result = await this.state.markFailed(merchantId, consent.id, status, code, message);
    if (!result.applied) {
      this.logger.warn(
        { consentId: consent.id, found: result.found, status },
        'embedded consent: not marked',
      );
    }
  }
}
