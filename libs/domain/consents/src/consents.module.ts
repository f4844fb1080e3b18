import { Module } from '@nestjs/common';
import { AccountsModule } from '#libs/domain/accounts';
import { EventsModule } from '#libs/domain/events';
import { InstitutionsModule } from '#libs/domain/institutions';
import { SyncRunsModule } from '#libs/domain/sync-runs';
import { ConnectFunnelRepository } from './connect-funnel.repository.js';
import { ConnectFunnelService } from './connect-funnel.service.js';
import { ConsentRepository } from './consent.repository.js';
import { ConsentAuthoriserService } from './consent-authoriser.service.js';
import { ConsentBankAnswerService } from './consent-bank-answer.service.js';
import { ConsentCallbackHooks } from './consent-callback.hooks.js';
import { ConsentCallbackService } from './consent-callback.service.js';
import { ConsentConversionRepository } from './consent-conversion.repository.js';
import { ConsentConversionService } from './consent-conversion.service.js';
import { ConsentExpiryRepository } from './consent-expiry.repository.js';
import { ConsentExpiryScanService } from './consent-expiry-scan.service.js';
import { ConsentFirstSyncRepository } from './consent-first-sync.repository.js';
import { ConsentLifecycleRepository } from './consent-lifecycle.repository.js';
import { ConsentReadingStartService } from './consent-reading-start.service.js';
import { ConsentReconciliationService } from './consent-reconciliation.service.js';
import { ConsentRenewalService } from './consent-renewal.service.js';
import { ConsentRenewalLinkService } from './consent-renewal-link.service.js';
import { ConsentSettleService } from './consent-settle.service.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { ConsentStatsRepository } from './consent-stats.repository.js';
import { ConsentStatusHistoryRepository } from './consent-status-history.repository.js';
import { ConsentTokenVault } from './consent-token.vault.js';
import { ConsentsService } from './consents.service.js';
import { EmbeddedConsentEndings } from './embedded-consent-endings.js';
import { EmbeddedConsentPollService } from './embedded-consent-poll.service.js';
import { EmbeddedConsentsService } from './embedded-consents.service.js';
import { HostedConsentsService } from './hosted-consents.service.js';
import { RedirectConsentsService } from './redirect-consents.service.js';
import { UnreturnedConsentsService } from './unreturned-consents.service.js';

/**
 * Relies on the global config, database, logger, queue and upstream-client modules of CoreModule. Other
 * libraries reach consents through the state owner (ConsentStateRepository), the token vault, the consent
 * repository and the flows a payment or a sync starts; the other exports are the api's routes and the
 * worker's jobs. An export no other module injects is dropped (test/module-exports.spec.ts).
 */
@Module({
  imports: [AccountsModule, SyncRunsModule, EventsModule, InstitutionsModule],
  providers: [
    ConsentFirstSyncRepository,
    ConsentRepository,
    ConsentStateRepository,
    ConsentTokenVault,
    ConsentReadingStartService,
    ConsentAuthoriserService,
    ConsentCallbackHooks,
    RedirectConsentsService,
    ConsentCallbackService,
    EmbeddedConsentsService,
    EmbeddedConsentEndings,
    EmbeddedConsentPollService,
    HostedConsentsService,
    ConsentRenewalService,
    ConsentRenewalLinkService,
    ConsentBankAnswerService,
    ConsentSettleService,
    UnreturnedConsentsService,
    ConsentsService,
    ConsentLifecycleRepository,
    ConsentExpiryRepository,
    ConsentExpiryScanService,
    ConsentReconciliationService,
    ConsentStatsRepository,
    ConsentStatusHistoryRepository,
    ConsentConversionRepository,
    ConsentConversionService,
    ConnectFunnelRepository,
    ConnectFunnelService,
  ],
  exports: [
    EmbeddedConsentPollService,
    ConsentConversionRepository,
    ConsentConversionService,
    ConnectFunnelService,
    ConsentCallbackHooks,
    ConsentFirstSyncRepository,
    ConsentRepository,
    ConsentExpiryScanService,
    ConsentReconciliationService,
    ConsentLifecycleRepository,
    ConsentStateRepository,
    ConsentStatsRepository,
    ConsentTokenVault,
    RedirectConsentsService,
    ConsentCallbackService,
    EmbeddedConsentsService,
    HostedConsentsService,
    ConsentRenewalService,
    ConsentRenewalLinkService,
    ConsentSettleService,
    ConsentsService,
  ],
})
export class ConsentsModule {}
