import { Module } from '@nestjs/common';
import { AccountsController } from './accounts.controller.js';
import { DataAdminController } from './data-admin.controller.js';
import { FinancialDataService } from './financial-data.service.js';
import { FinancialDataStore } from './financial-data.store.js';
import { UnattendedReadsService } from './unattended-reads.service.js';
import { UnattendedReadsAdminController } from './unattended-reads-admin.controller.js';

/** Financial data (upstream spec §4.2): deterministic fixture accounts behind authorised data consents. */
@Module({
  controllers: [AccountsController, DataAdminController, UnattendedReadsAdminController],
  providers: [FinancialDataStore, FinancialDataService, UnattendedReadsService],
})
export class DataModule {}
