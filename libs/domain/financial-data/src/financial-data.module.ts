import { Module } from '@nestjs/common';
import { ConsentAccessService } from './consent-access.service.js';
import { FinancialDataRepository } from './financial-data.repository.js';
import { FinancialDataService } from './financial-data.service.js';

/** Relies on the global config, database, logger and upstream-client modules of CoreModule. */
@Module({
  providers: [FinancialDataRepository, ConsentAccessService, FinancialDataService],
  exports: [ConsentAccessService, FinancialDataService],
})
export class FinancialDataModule {}
