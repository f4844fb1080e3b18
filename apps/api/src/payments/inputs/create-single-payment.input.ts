import { ApiProperty } from '@nestjs/swagger';
import { IsInstitutionId, IsPaymentReference, IsRedirectUrl } from '../../common/field-rules.js';
import { MoneyField, MoneyInput } from '../../common/inputs/money.input.js';
import { PayeeField, PayeeInput } from '../../common/inputs/payee.input.js';

export class CreateSinglePaymentInput {
  @ApiProperty({ example: 'sandbox-payments', maxLength: 255 })
  @IsInstitutionId()
  institutionId!: string;

  @MoneyField('What to pay: a decimal string, never rounded')
  amount!: MoneyInput;

  @PayeeField()
  payee!: PayeeInput;

  @IsPaymentReference({ required: true, example: 'Order 1234', description: 'Shown on both statements' })
  reference!: string;

  @ApiProperty({
    example: 'https://app.acme.example/checkout/done',
    maxLength: 2048,
    description:
      'Where the browser is sent after the bank, with `paymentId`, `consentId`, `status` (the payment’s: PENDING, COMPLETED, …, or REJECTED) and, on failure, `error`. Absolute http(s), on one of the merchant’s frontendOrigins when it has any.',
  })
  @IsRedirectUrl()
  redirectUrl!: string;
}
