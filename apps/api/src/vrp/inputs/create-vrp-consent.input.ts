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
  ValidateNested,
} from 'class-validator';
import { VRP_ALIGNMENTS, VRP_FREQUENCIES } from '#libs/domain/payments';
import {
  IsInstitutionId,
  IsPaymentReference,
  IsRedirectUrl,
  OptionalDateTime,
} from '../../common/field-rules.js';
import { MoneyField, MoneyInput } from '../../common/inputs/money.input.js';
import { PayeeField, PayeeInput } from '../../common/inputs/payee.input.js';

export class PeriodicLimitInput {
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

  @MoneyField('The most paid in one period')
  totalMaxAmount!: MoneyInput;
}

export class ControlParametersInput {
  @MoneyField('The most one payment may be')
  maxAmountPerPayment!: MoneyInput;

  @ApiProperty({ type: [PeriodicLimitInput], description: 'At least one; one per frequency' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(6)
  @ValidateNested({ each: true })
  @Type(() => PeriodicLimitInput)
  periodicLimits!: PeriodicLimitInput[];

  @ApiPropertyOptional({ type: [String], example: ['SCA_NOT_REQUIRED'], default: ['SCA_NOT_REQUIRED'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2)
  @IsIn(['SCA_REQUIRED', 'SCA_NOT_REQUIRED'], { each: true })
  psuAuthenticationMethods?: string[];

  @OptionalDateTime('Default: now')
  validFrom?: string;

  @OptionalDateTime('Default: open-ended (as long as the bank allows)')
  validTo?: string;
}

export class CreateVrpConsentInput {
  @ApiProperty({ example: 'sandbox-payments', maxLength: 255 })
  @IsInstitutionId()
  institutionId!: string;

  @PayeeField('Where the sweeps go: the user’s own account elsewhere')
  payee!: PayeeInput;

  @IsPaymentReference({
    required: false,
    example: 'Savings sweep',
    description: 'The reference of the payments made under the consent, shown on both statements',
  })
  reference?: string;

  @ApiProperty({ type: ControlParametersInput })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => ControlParametersInput)
  controlParameters!: ControlParametersInput;

  @ApiProperty({
    example: 'https://app.acme.example/sweeps/connected',
    maxLength: 2048,
    description:
      'Where the browser is sent after the bank, with `consentId` and `status` (AUTHORIZED, REJECTED or FAILED).',
  })
  @IsRedirectUrl()
  redirectUrl!: string;
}
