import { Inject, Injectable } from '@nestjs/common';
import type { MerchantId } from '#libs/context';
import { AccountSyncStateRepository } from '#libs/domain/accounts';
import { SyncRequestsService, USER_PRESENT_MS } from '#libs/domain/sync-runs';
import { type AppLogger, LOGGER } from '#libs/observability';
import { JobProducerService } from '#libs/queue';
import type { StoredConsent } from './consent.repository.js';

/**
 * The work a data consent's authorisation sets going once ConsentAuthoriserService has stored it: its
 * expiry's settle job and its accounts' first syncs. Apart from the store, as it queues and writes nothing.
 */
@Injectable()
export class ConsentReadingStartService {
  constructor(
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly syncState: AccountSyncStateRepository,
    private readonly syncs: SyncRequestsService,
    private readonly jobs: JobProducerService,
  ) {}

  /**
   * An authorised data consent: its expiry scheduled, and the first sync of every account asked for at
   * once; on behalf of the user when they are present (`userAddress`: their browser came back from the
   * bank), so that it is not one of the bank's daily reads without them.
   */
  async start(merchantId: MerchantId, consent: StoredConsent, expiresAt: Date | null, userAddress?: string) {
    await this.scheduleExpiry(merchantId, consent.id, expiresAt);
    // Made due a little later (FIRST_SYNC_ASKED_WITHIN_MS), for the dispatcher should this request be lost.
    const accounts = await this.syncState.idsOfConsent(merchantId, consent.id);
    await this.syncs.requestInitial(
      accounts.map((accountId) => ({ merchantId: consent.merchantId, accountId })),
      userAddress === undefined
        ? undefined
        : { ipAddress: userAddress, presentUntil: Date.now() + USER_PRESENT_MS },
    );
  }

  /**
   * EXPIRED at its instant: the settle job, delayed to `expiresAt` (one per expiry, so a renewal's new
   * expiry has its own and the old one finds nothing due). Best effort: without Redis every read still
   * shows EXPIRED on time and the scan writes it; only the event waits for the scan.
   */
  private async scheduleExpiry(merchantId: MerchantId, consentId: string, expiresAt: Date | null) {
    if (!expiresAt) return;
    try {
      await this.jobs.enqueue(
        'consents.settle',
        { merchantId, consentId, check: `expiry-${expiresAt.getTime()}` },
        { delay: Math.max(0, expiresAt.getTime() - Date.now()) },
      );
    } catch (error) {
      this.logger.warn(
        { consentId, errorName: (error as Error)?.name },
        'consent authorised: its expiry not scheduled; the expiry scan writes it',
      );
    }
  }
}
