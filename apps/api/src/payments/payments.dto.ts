import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { IsInstitutionId, IsRedirectUrl } from '../common/field-rules.js';
import { IsPaymentReference, PayeeDto, PaymentAmountDto } from '../common/payment.dto.js';

export class CreateSinglePaymentDto {
  @ApiProperty({ example: 'sandbox-payments', maxLength: 255 })
  @IsInstitutionId()
  institutionId!: string;

  @ApiProperty({ type: PaymentAmountDto, description: 'What to pay: a decimal string, never rounded' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PaymentAmountDto)
  amount!: PaymentAmountDto;

  @ApiProperty({ type: PayeeDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PayeeDto)
  payee!: PayeeDto;

  @ApiProperty({ example: 'Order 1234', maxLength: 18, description: 'Shown on both statements' })
  @IsString()
  @MinLength(1)
  @MaxLength(18)
  @IsPaymentReference()
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
