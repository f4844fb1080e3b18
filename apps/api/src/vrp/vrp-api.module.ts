import { Module } from '@nestjs/common';
import { FinancialDataModule } from '#libs/domain/financial-data';
import { PaymentsModule } from '#libs/domain/payments';
import { HostedVrpRequestsController } from './hosted-vrp-requests.controller.js';
import { UserVrpConsentsController } from './user-vrp-consents.controller.js';
import { VrpConsentsController } from './vrp-consents.controller.js';
import { VrpPaymentsController } from './vrp-payments.controller.js';

/**
 * Sweeping VRP (docs/payments.md): a user's consent within limits, its payments, and the
 * commercial hosted VRP requests answered through to the upstream.
 */
@Module({
  imports: [PaymentsModule, FinancialDataModule],
  controllers: [
    HostedVrpRequestsController,
    UserVrpConsentsController,
    VrpConsentsController,
    VrpPaymentsController,
  ],
})
export class VrpApiModule {}
