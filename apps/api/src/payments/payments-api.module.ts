import { Module } from '@nestjs/common';
import { PaymentsModule } from '#libs/domain/payments';
import { PaymentsController } from './payments.controller.js';
import { VrpConsentsController } from '../vrp/vrp-consents.controller.js';
import { VrpPaymentsController } from '../vrp/vrp-payments.controller.js';

/** Payment routes of the merchant API (API.md, "Payments and VRP"). */
@Module({
  imports: [PaymentsModule],
  controllers: [PaymentsController, VrpConsentsController, VrpPaymentsController],
})
export class PaymentsApiModule {}
