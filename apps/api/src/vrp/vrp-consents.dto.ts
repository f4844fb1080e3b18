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
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { VRP_ALIGNMENTS, VRP_FREQUENCIES } from '#libs/domain/payments';
import { ConsentDto } from '../common/consent.dto.js';
import { IsInstitutionId, IsOptionalDateTime, IsRedirectUrl } from '../common/field-rules.js';
import { MoneyViewDto } from '../common/money.dto.js';
import { IsPaymentReference, PayeeDto, PaymentAmountDto } from '../common/payment.dto.js';

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
