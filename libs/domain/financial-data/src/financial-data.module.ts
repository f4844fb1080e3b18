import { Module } from '@nestjs/common';
import { AccountsModule } from '#libs/domain/accounts';
import { ConsentsModule } from '#libs/domain/consents';
import { ConsentAccessService } from './consent-access.service.js';
import { FinancialDataRepository } from './financial-data.repository.js';
import { FinancialDataService } from './financial-data.service.js';

/**
 * Relies on the global config, database, logger and upstream-client modules of CoreModule; consent tokens
 * and consent status come through ConsentsModule's token vault and state owner; the allowance of reads
 * without the user, through AccountsModule.
 */
@Module({
  imports: [AccountsModule, ConsentsModule],
  providers: [FinancialDataRepository, ConsentAccessService, FinancialDataService],
  exports: [ConsentAccessService, FinancialDataService],
})
export class FinancialDataModule {}
