import { Module } from '@nestjs/common';
import { ConsentsModule } from '#libs/domain/consents';
import { EventsModule } from '#libs/domain/events';
import { FinancialDataModule } from '#libs/domain/financial-data';
import { HostedVrpRequestRepository } from './hosted-vrp-request.repository.js';
import { HostedVrpRequestsService } from './hosted-vrp-requests.service.js';
import { ParkedPaymentRepository } from './parked-payment.repository.js';
import { ParkedPaymentsService } from './parked-payments.service.js';
import { PaymentRepository } from './payment.repository.js';
import { PaymentCallOptionsService } from './payment-call-options.service.js';
import { PaymentStateRepository } from './payment-state.repository.js';
import { PaymentStatsRepository } from './payment-stats.repository.js';
import { PaymentStatusPoller } from './payment-status.poller.js';
import { PaymentSubmitterService } from './payment-submitter.service.js';
import { PaymentsService } from './payments.service.js';
import { SinglePaymentsService } from './single-payments.service.js';
import { VrpConsentsService } from './vrp-consents.service.js';
import { VrpPaymentRepository } from './vrp-payment.repository.js';
import { VrpPaymentsService } from './vrp-payments.service.js';

/**
 * Payments: single payments (one consent each, made on the callback), sweeping VRP consents, commercial
 * VRP set up on the upstream's hosted page, the payments within their limits, and a payment's status
 * (webhooks, with the status poll behind them).
 */
@Module({
  imports: [ConsentsModule, EventsModule, FinancialDataModule],
  providers: [
    HostedVrpRequestRepository,
    HostedVrpRequestsService,
    ParkedPaymentRepository,
    ParkedPaymentsService,
    PaymentRepository,
    PaymentCallOptionsService,
    PaymentStateRepository,
    PaymentStatsRepository,
    PaymentSubmitterService,
    PaymentStatusPoller,
    PaymentsService,
    SinglePaymentsService,
    VrpConsentsService,
    VrpPaymentRepository,
    VrpPaymentsService,
  ],
  exports: [
    HostedVrpRequestsService,
    ParkedPaymentsService,
    PaymentRepository,
    PaymentStateRepository,
    PaymentStatsRepository,
    PaymentStatusPoller,
    PaymentsService,
    SinglePaymentsService,
    VrpConsentsService,
    VrpPaymentsService,
  ],
})
export class PaymentsModule {}
