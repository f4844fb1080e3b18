import { Module } from '@nestjs/common';
import { PaymentsModule } from '#libs/domain/payments';
import { VrpPaymentsController } from './vrp-payments.controller.js';

/** Payment routes of the merchant API (API.md, "Payments and VRP"). */
@Module({ imports: [PaymentsModule], controllers: [VrpPaymentsController] })
export class PaymentsApiModule {}
