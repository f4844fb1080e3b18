import { Module } from '@nestjs/common';
import { FinancialDataModule } from '#libs/domain/financial-data';
import { AccountDataController } from './account-data.controller.js';
import { HostedVrpRequestsController } from './hosted-vrp-requests.controller.js';
import { VrpConsentsController } from './vrp-consents.controller.js';

/** Financial data and VRP routes answered through to the upstream with a stored consent. */
@Module({
  imports: [FinancialDataModule],
  controllers: [AccountDataController, VrpConsentsController, HostedVrpRequestsController],
})
export class DataApiModule {}
