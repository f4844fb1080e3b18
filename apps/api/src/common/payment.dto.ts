import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { MoneyViewDto } from './money.dto.js';

// What single payments and VRP share: the amount and payee a payment is made with, and the payment answered.

/**
 * Money in a payment: like every amount of the API a decimal string, but with up to three decimals, as
 * some currencies have (KWD, BHD); the service refuses more than the currency's own.
 */
export class PaymentAmountDto {
  @ApiProperty({
    example: '12.34',
    description:
      'Decimal string, greater than 0, at most the currency’s decimals and 15 significant digits (never a JSON number)',
  })
  @IsString()
  @Matches(/^(?:0|[1-9]\d{0,12})(?:\.\d{1,3})?$/, {
    message: 'amount must be a decimal string with at most 3 decimals',
  })
  @Matches(/[1-9]/, { message: 'amount must be greater than 0' })
  amount!: string;

  @ApiProperty({ example: 'GBP' })
  @IsString()
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code' })
  currency!: string;
}

/** What UK payment schemes carry in a reference: printable ASCII. */
export const IsPaymentReference = () =>
  Matches(/^[\x20-\x7E]+$/, { message: 'reference must be printable ASCII characters' });

export class AccountIdentificationDto {
  @ApiProperty({ example: 'SORT_CODE', description: 'SORT_CODE, ACCOUNT_NUMBER, IBAN, BBAN, PAN, …' })
  @IsString()
  @Matches(/^[A-Z_]{2,32}$/, { message: 'type must be an upstream identification type such as SORT_CODE' })
  type!: string;

  @ApiProperty({ example: '123456', maxLength: 64 })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  identification!: string;
}

export class PayeeDto {
  @ApiProperty({ example: 'Jane Saver', maxLength: 140 })
  @IsString()
  @MinLength(1)
  @MaxLength(140)
  name!: string;

  @ApiProperty({
    type: [AccountIdentificationDto],
    description: 'A UK domestic payee: SORT_CODE (6 digits) and ACCOUNT_NUMBER (8 digits)',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  @ValidateNested({ each: true })
  @Type(() => AccountIdentificationDto)
  accountIdentifications!: AccountIdentificationDto[];
}

export class PaymentDto {
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
  @ApiProperty({ type: String, nullable: true, description: 'Why it failed, when the bank said' })
  statusReason!: string | null;
  @ApiProperty({ type: MoneyViewDto }) amount!: MoneyViewDto;
  @ApiProperty({ type: String, nullable: true }) reference!: string | null;
  @ApiProperty({ type: PayeeDto, nullable: true }) payee!: PayeeDto | null;
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
