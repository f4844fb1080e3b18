import { Module } from '@nestjs/common';
import { EventsModule } from '#libs/domain/events';
import { PaymentStateRepository } from './payment-state.repository.js';

/** Payments: for now the owner of a payment's status, which webhooks advance. */
@Module({ imports: [EventsModule], providers: [PaymentStateRepository], exports: [PaymentStateRepository] })
export class PaymentsModule {}
