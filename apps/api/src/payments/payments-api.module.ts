import { Module } from '@nestjs/common';
import { PaymentsModule } from '#libs/domain/payments';
import { PaymentsController } from './payments.controller.js';

/** Single payments and a user's payments (docs/payments.md). */
@Module({
  imports: [PaymentsModule],
  controllers: [PaymentsController],
})
export class PaymentsApiModule {}
