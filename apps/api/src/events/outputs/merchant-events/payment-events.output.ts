import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { FINAL_PAYMENT_STATUSES } from '#libs/domain/payments';
import { MoneyOutput } from '../../../common/outputs/money.output.js';

// The `payment.*` events: what PaymentStateRepository (libs/domain/payments) records of a payment as its
// final status is applied.

/** What every payment event says of its payment. */
class PaymentEventFields {
  @ApiProperty({ format: 'uuid', description: 'GET /v1/payments/{paymentId}' }) paymentId!: string;
  @ApiProperty({ enum: ['SINGLE', 'VRP'] }) kind!: string;
  @ApiProperty({ format: 'uuid', description: 'The payment’s consent (single or sweeping VRP)' })
  consentId!: string;
  @ApiProperty() status!: string;
  @ApiProperty({
    type: MoneyOutput,
    description: 'With as many decimals as the currency has: 12.34 GBP, 1200 JPY',
  })
  amount!: MoneyOutput;
  @ApiProperty({ type: String, nullable: true }) reference!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The bank’s payment id; null for a payment that never reached the bank (not approved, refused)',
  })
  upstreamPaymentId!: string | null;
}

@ApiSchema({ description: '`data` of payment.completed and payment.failed: the payment at its final status' })
export class PaymentEventData extends PaymentEventFields {
  @ApiProperty({
    enum: FINAL_PAYMENT_STATUSES,
    description:
      'The final status: COMPLETED in payment.completed; FAILED, DECLINED, REJECTED, EXPIRED or CANCELLED in payment.failed',
  })
  override status!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why, when known: the bank’s reason, or the note of the person who checked with the bank (a payment held for review)',
  })
  statusReason!: string | null;
}

@ApiSchema({ description: '`data` of payment.held_for_review: a payment a person is checking with the bank' })
export class PaymentHeldEventData extends PaymentEventFields {
  @ApiProperty({ description: 'Not final: SUBMITTING or PENDING' }) override status!: string;
  @ApiProperty({ format: 'date-time', description: 'Since when' }) heldSince!: string;
  @ApiProperty({ description: 'Why no check of ours can settle it' }) reason!: string;
}
