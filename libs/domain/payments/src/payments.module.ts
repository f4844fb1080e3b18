import { Module } from '@nestjs/common';
import { EventsModule } from '#libs/domain/events';
import { FinancialDataModule } from '#libs/domain/financial-data';
import { PaymentStateRepository } from './payment-state.repository.js';
import { VrpPaymentRepository } from './vrp-payment.repository.js';
import { VrpPaymentsService } from './vrp-payments.service.js';

/** Payments: a payment's status (which webhooks advance), and sweeping VRP payments within their limits. */
@Module({
  imports: [EventsModule, FinancialDataModule],
  providers: [PaymentStateRepository, VrpPaymentRepository, VrpPaymentsService],
  exports: [PaymentStateRepository, VrpPaymentsService],
})
export class PaymentsModule {}
