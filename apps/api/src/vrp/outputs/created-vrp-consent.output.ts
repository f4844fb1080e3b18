import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ConsentOutput } from '../../common/outputs/consent.output.js';
import { MoneyOutput } from '../../common/outputs/money.output.js';

export class PeriodicLimitOutput {
  @ApiProperty({ example: 'MONTHLY' }) frequency!: string;
  @ApiProperty({ example: 'CONSENT' }) alignment!: string;
  @ApiProperty({ type: MoneyOutput }) totalMaxAmount!: MoneyOutput;
}

export class ControlParametersOutput {
  @ApiProperty({ type: [String] }) psuAuthenticationMethods!: string[];
  @ApiProperty({ type: MoneyOutput }) maxAmountPerPayment!: MoneyOutput;
  @ApiProperty({ type: [PeriodicLimitOutput] }) periodicLimits!: PeriodicLimitOutput[];
  @ApiProperty({ format: 'date-time' }) validFrom!: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Absent when none was set: no end' })
  validTo?: string;
}

export class CreatedVrpConsentOutput extends ConsentOutput {
  @ApiProperty({ type: ControlParametersOutput }) controlParameters!: ControlParametersOutput;
}
