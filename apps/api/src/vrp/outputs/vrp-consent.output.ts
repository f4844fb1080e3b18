import { ApiProperty } from '@nestjs/swagger';
import { MoneyOutput } from '../../common/outputs/money.output.js';

export class VrpPeriodOutput {
  @ApiProperty({ format: 'date-time', description: 'Included' }) start!: string;
  @ApiProperty({
    format: 'date-time',
    description: 'Not included: a payment made then counts in the next period',
  })
  end!: string;
}

const UNKNOWN_FREQUENCY = 'Null only for a frequency the BFF does not know.';

export class VrpPeriodicLimitOutput {
  @ApiProperty({ example: 'MONTHLY' }) frequency!: string;
  @ApiProperty({ nullable: true, example: 'CALENDAR', type: String }) alignment!: string | null;
  @ApiProperty({ type: MoneyOutput, description: 'The limit of every whole period' })
  totalMaxAmount!: MoneyOutput;
  @ApiProperty({
    type: VrpPeriodOutput,
    nullable: true,
    description: `The period that holds now, in UTC. ${UNKNOWN_FREQUENCY}`,
  })
  currentPeriod!: VrpPeriodOutput | null;
  @ApiProperty({
    type: MoneyOutput,
    nullable: true,
    description: `The current period's limit: totalMaxAmount, pro-rated in a first CALENDAR period. ${UNKNOWN_FREQUENCY}`,
  })
  limitInCurrentPeriod!: MoneyOutput | null;
  @ApiProperty({
    type: MoneyOutput,
    nullable: true,
    description: `What this BFF's payments under the consent created in the current period add up to, those that may have moved money (not FAILED, DECLINED, REJECTED, EXPIRED or CANCELLED); 0 when none. ${UNKNOWN_FREQUENCY}`,
  })
  paidInCurrentPeriod!: MoneyOutput | null;
  @ApiProperty({
    type: MoneyOutput,
    nullable: true,
    description: `limitInCurrentPeriod less paidInCurrentPeriod: the most one more payment may be now, as far as this limit goes. ${UNKNOWN_FREQUENCY}`,
  })
  remainingInCurrentPeriod!: MoneyOutput | null;
}

export class VrpControlParametersOutput {
  @ApiProperty({ type: [String] }) psuAuthenticationMethods!: string[];
  @ApiProperty({ type: MoneyOutput, nullable: true }) maxAmountPerPayment!: MoneyOutput | null;
  @ApiProperty({ nullable: true, type: String }) validFrom!: string | null;
  @ApiProperty({ nullable: true, type: String }) validTo!: string | null;
  @ApiProperty({ type: [VrpPeriodicLimitOutput] }) periodicLimits!: VrpPeriodicLimitOutput[];
}

export class VrpConsentOutput {
  @ApiProperty() id!: string;
  @ApiProperty() upstreamConsentId!: string;
  @ApiProperty() institutionId!: string;
  @ApiProperty({ nullable: true, type: String }) status!: string | null;
  @ApiProperty({ nullable: true, type: String }) createdAt!: string | null;
  @ApiProperty({ nullable: true, type: String }) authorizedAt!: string | null;
  @ApiProperty({ type: VrpControlParametersOutput }) controlParameters!: VrpControlParametersOutput;
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true }) initiationDetails!: unknown;
}
