import { Module } from '@nestjs/common';
import { ConsentsModule } from '#libs/domain/consents';
import { EventsModule } from '#libs/domain/events';
import { FinancialDataModule } from '#libs/domain/financial-data';
import { ParkedPaymentsService } from './parked-payments.service.js';
import { PaymentRepository } from './payment.repository.js';
import { PaymentStateRepository } from './payment-state.repository.js';
import { PaymentStatusPoller } from './payment-status.poller.js';
import { PaymentSubmitter } from './payment-submitter.service.js';
import { PaymentsService } from './payments.service.js';
import { SinglePaymentsService } from './single-payments.service.js';
import { VrpConsentsService } from './vrp-consents.service.js';
import { VrpPaymentRepository } from './vrp-payment.repository.js';
import { VrpPaymentsService } from './vrp-payments.service.js';

/**
 * Payments: single payments (one consent each, made on the callback), sweeping VRP consents and the
 * payments within their limits, a payment's status (webhooks, with the status poll behind them).
 */
@Module({
  imports: [ConsentsModule, EventsModule, FinancialDataModule],
  providers: [
    ParkedPaymentsService,
    PaymentRepository,
    PaymentStateRepository,
    PaymentSubmitter,
    PaymentStatusPoller,
    PaymentsService,
    SinglePaymentsService,
    VrpConsentsService,
    VrpPaymentRepository,
    VrpPaymentsService,
  ],
  exports: [
    ParkedPaymentsService,
    PaymentStateRepository,
    PaymentStatusPoller,
    PaymentsService,
    SinglePaymentsService,
    VrpConsentsService,
    VrpPaymentsService,
  ],
})
export class PaymentsModule {}
