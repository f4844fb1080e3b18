import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { VRP_ALIGNMENTS, VRP_FREQUENCIES } from '#libs/domain/payments';
import { ConsentDto, IsInstitutionId, IsOptionalDateTime, IsRedirectUrl } from '../consents/consents.dto.js';
import { MoneyViewDto } from '../accounts/account-data.dto.js';

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

export class PeriodicLimitDto {
  @ApiProperty({ enum: VRP_FREQUENCIES, example: 'MONTHLY' })
  @IsIn(VRP_FREQUENCIES)
  frequency!: string;

  @ApiPropertyOptional({
    enum: VRP_ALIGNMENTS,
    default: 'CONSENT',
    description: 'CONSENT: periods start at validFrom; CALENDAR: calendar periods (UTC), the first pro-rated',
  })
  @IsOptional()
  @IsIn(VRP_ALIGNMENTS)
  alignment?: string;

  @ApiProperty({ type: PaymentAmountDto, description: 'The most paid in one period' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PaymentAmountDto)
  totalMaxAmount!: PaymentAmountDto;
}

export class ControlParametersDto {
  @ApiProperty({ type: PaymentAmountDto, description: 'The most one payment may be' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PaymentAmountDto)
  maxAmountPerPayment!: PaymentAmountDto;

  @ApiProperty({ type: [PeriodicLimitDto], description: 'At least one; one per frequency' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(6)
  @ValidateNested({ each: true })
  @Type(() => PeriodicLimitDto)
  periodicLimits!: PeriodicLimitDto[];

  @ApiPropertyOptional({ type: [String], example: ['SCA_NOT_REQUIRED'], default: ['SCA_NOT_REQUIRED'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2)
  @IsIn(['SCA_REQUIRED', 'SCA_NOT_REQUIRED'], { each: true })
  psuAuthenticationMethods?: string[];

  @ApiPropertyOptional({ format: 'date-time', description: 'Default: now' })
  @IsOptionalDateTime()
  validFrom?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Default: open-ended (as long as the bank allows)',
  })
  @IsOptionalDateTime()
  validTo?: string;
}

export class CreateVrpConsentDto {
  @ApiProperty({ example: 'sandbox-payments', maxLength: 255 })
  @IsInstitutionId()
  institutionId!: string;

  @ApiProperty({ type: PayeeDto, description: 'Where the sweeps go: the user’s own account elsewhere' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PayeeDto)
  payee!: PayeeDto;

  @ApiPropertyOptional({ example: 'Savings sweep', maxLength: 18 })
  @IsOptional()
  @IsString()
  @MaxLength(18)
  @IsPaymentReference()
  reference?: string;

  @ApiProperty({ type: ControlParametersDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ControlParametersDto)
  controlParameters!: ControlParametersDto;

  @ApiProperty({
    example: 'https://app.acme.example/sweeps/connected',
    maxLength: 2048,
    description:
      'Where the browser is sent after the bank, with `consentId` and `status` (AUTHORIZED, REJECTED or FAILED).',
  })
  @IsRedirectUrl()
  redirectUrl!: string;
}

class PeriodicLimitViewDto {
  @ApiProperty({ example: 'MONTHLY' }) frequency!: string;
  @ApiProperty({ example: 'CONSENT' }) alignment!: string;
  @ApiProperty({ type: MoneyViewDto }) totalMaxAmount!: MoneyViewDto;
}

class ControlParametersViewDto {
  @ApiProperty({ type: [String] }) psuAuthenticationMethods!: string[];
  @ApiProperty({ type: MoneyViewDto }) maxAmountPerPayment!: MoneyViewDto;
  @ApiProperty({ type: [PeriodicLimitViewDto] }) periodicLimits!: PeriodicLimitViewDto[];
  @ApiProperty({ format: 'date-time' }) validFrom!: string;
  @ApiPropertyOptional({ format: 'date-time' }) validTo?: string;
}

export class CreatedVrpConsentDto extends ConsentDto {
  @ApiProperty({ type: ControlParametersViewDto }) controlParameters!: ControlParametersViewDto;
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

export class FundsConfirmationDto {
  @ApiPropertyOptional({ maxLength: 18, example: 'Top-up' })
  @IsOptional()
  @IsString()
  @MaxLength(18)
  reference?: string;

  @ApiProperty({ type: PaymentAmountDto, description: 'As for a payment: a decimal string, never rounded' })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => PaymentAmountDto)
  amount!: PaymentAmountDto;
}

export class FundsConfirmationViewDto {
  @ApiProperty({ nullable: true, type: String }) id!: string | null;
  @ApiProperty({ nullable: true, type: String }) reference!: string | null;
  @ApiProperty({ type: MoneyViewDto }) amount!: MoneyViewDto;
  @ApiProperty() fundsAvailable!: boolean;
  @ApiProperty({ nullable: true, type: String }) fundsAvailableAt!: string | null;
}

export class VrpPeriodViewDto {
  @ApiProperty({ format: 'date-time', description: 'Included' }) start!: string;
  @ApiProperty({
    format: 'date-time',
    description: 'Not included: a payment made then counts in the next period',
  })
  end!: string;
}

const UNKNOWN_FREQUENCY = 'Null only for a frequency the BFF does not know.';

export class VrpPeriodicLimitViewDto {
  @ApiProperty({ example: 'MONTHLY' }) frequency!: string;
  @ApiProperty({ nullable: true, example: 'CALENDAR', type: String }) alignment!: string | null;
  @ApiProperty({ type: MoneyViewDto, description: 'The limit of every whole period' })
  totalMaxAmount!: MoneyViewDto;
  @ApiProperty({
    type: VrpPeriodViewDto,
    nullable: true,
    description: `The period that holds now, in UTC. ${UNKNOWN_FREQUENCY}`,
  })
  currentPeriod!: VrpPeriodViewDto | null;
  @ApiProperty({
    type: MoneyViewDto,
    nullable: true,
    description: `The current period's limit: totalMaxAmount, pro-rated in a first CALENDAR period. ${UNKNOWN_FREQUENCY}`,
  })
  limitInCurrentPeriod!: MoneyViewDto | null;
  @ApiProperty({
    type: MoneyViewDto,
    nullable: true,
    description: `What this BFF's payments under the consent created in the current period add up to, those that may have moved money (not FAILED, DECLINED, REJECTED, EXPIRED or CANCELLED); 0 when none. ${UNKNOWN_FREQUENCY}`,
  })
  paidInCurrentPeriod!: MoneyViewDto | null;
  @ApiProperty({
    type: MoneyViewDto,
    nullable: true,
    description: `limitInCurrentPeriod less paidInCurrentPeriod: the most one more payment may be now, as far as this limit goes. ${UNKNOWN_FREQUENCY}`,
  })
  remainingInCurrentPeriod!: MoneyViewDto | null;
}

export class VrpControlParametersViewDto {
  @ApiProperty({ type: [String] }) psuAuthenticationMethods!: string[];
  @ApiProperty({ type: MoneyViewDto, nullable: true }) maxAmountPerPayment!: MoneyViewDto | null;
  @ApiProperty({ nullable: true, type: String }) validFrom!: string | null;
  @ApiProperty({ nullable: true, type: String }) validTo!: string | null;
  @ApiProperty({ type: [VrpPeriodicLimitViewDto] }) periodicLimits!: VrpPeriodicLimitViewDto[];
}

export class VrpConsentDto {
  @ApiProperty() id!: string;
  @ApiProperty() upstreamConsentId!: string;
  @ApiProperty() institutionId!: string;
  @ApiProperty({ nullable: true, type: String }) status!: string | null;
  @ApiProperty({ nullable: true, type: String }) createdAt!: string | null;
  @ApiProperty({ nullable: true, type: String }) authorizedAt!: string | null;
  @ApiProperty({ type: VrpControlParametersViewDto }) controlParameters!: VrpControlParametersViewDto;
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true }) initiationDetails!: unknown;
}
