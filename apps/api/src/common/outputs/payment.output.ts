import { ApiProperty } from '@nestjs/swagger';
import { MoneyOutput } from './money.output.js';

// A payment as answered, single or VRP: by the payment routes and the VRP payment routes.

export class AccountIdentificationOutput {
  @ApiProperty({ example: 'SORT_CODE', description: 'SORT_CODE, ACCOUNT_NUMBER, IBAN, BBAN, PAN, …' })
  type!: string;
  @ApiProperty({ example: '123456', maxLength: 64 }) identification!: string;
}

export class PayeeOutput {
  @ApiProperty({ example: 'Jane Saver', maxLength: 140 }) name!: string;
  @ApiProperty({
    type: [AccountIdentificationOutput],
    description: 'A UK domestic payee: SORT_CODE (6 digits) and ACCOUNT_NUMBER (8 digits)',
  })
  accountIdentifications!: AccountIdentificationOutput[];
}

export class PaymentReviewOutput {
  @ApiProperty({ format: 'date-time', description: 'Since when a person has been asked to check' })
  since!: string;
  @ApiProperty({ description: 'Why no check of ours can settle it' }) reason!: string;
}

export class PaymentOutput {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['SINGLE', 'VRP'] }) kind!: string;
  @ApiProperty({ format: 'uuid' }) userId!: string;
  @ApiProperty({ format: 'uuid' }) consentId!: string;
  @ApiProperty() institutionId!: string;
  @ApiProperty({
    example: 'PENDING',
    description:
      'AWAITING_AUTHORIZATION (a single payment before the user approves) and SUBMITTING (on its way to the bank) are ours; then the upstream’s, verbatim: PENDING, then COMPLETED, or FAILED, DECLINED, REJECTED, EXPIRED',
  })
  status!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why it failed, when the bank said; a person’s note when they settled it; while heldForReview, that a person is checking with the bank',
  })
  statusReason!: string | null;
  @ApiProperty({
    type: PaymentReviewOutput,
    nullable: true,
    description:
      'Set while the payment may or may not have been paid and a person is checking with the bank (payment.held_for_review); its final status follows. Do not offer to pay again meanwhile',
  })
  heldForReview!: PaymentReviewOutput | null;
  @ApiProperty({ type: MoneyOutput }) amount!: MoneyOutput;
  @ApiProperty({ type: String, nullable: true }) reference!: string | null;
  @ApiProperty({ type: PayeeOutput, nullable: true }) payee!: PayeeOutput | null;
  @ApiProperty({ type: String, nullable: true }) upstreamPaymentId!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'A single payment’s bank page, while it awaits the user (send the browser there)',
  })
  authorisationUrl!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) statusUpdatedAt!: string | null;
}
