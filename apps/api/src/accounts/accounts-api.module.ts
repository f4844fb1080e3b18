import { Module } from '@nestjs/common';
import { FinancialDataModule } from '#libs/domain/financial-data';
import { AccountDataController } from './account-data.controller.js';
import { HostedVrpRequestsController } from '../vrp/hosted-vrp-requests.controller.js';

/** Financial data and hosted VRP request routes answered through to the upstream with a stored consent. */
@Module({
  imports: [FinancialDataModule],
  controllers: [AccountDataController, HostedVrpRequestsController],
})
export class DataApiModule {}
