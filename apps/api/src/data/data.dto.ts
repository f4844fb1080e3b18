import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';

export class StatementsQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'Inclusive lower bound' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Inclusive upper bound' })
  @IsOptional()
  @IsISO8601({ strict: true })
  before?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 1000, default: 1000 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ enum: ['date', '-date'], default: '-date' })
  @IsOptional()
  @IsIn(['date', '-date'])
  sort?: 'date' | '-date';

  @ApiPropertyOptional({
    description:
      '`meta.nextCursor` of the previous page; it carries that walk’s `from`, `before` and `sort`, so send only `limit` with it',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  cursor?: string;
}

export class LiveTransactionsQueryDto {
  @ApiPropertyOptional({ format: 'date-time', description: 'First page only' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'First page only' })
  @IsOptional()
  @IsISO8601({ strict: true })
  before?: string;

  @ApiPropertyOptional({ description: 'Opaque cursor from meta.nextCursor (then from/before are refused)' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  cursor?: string;
}

export class CategorisationDto {
  @ApiProperty({ enum: ['consumer', 'business'] })
  @IsIn(['consumer', 'business'])
  categorisationType: 'consumer' | 'business';

  @ApiPropertyOptional({
    example: 'GB',
    description:
      "ISO 3166-1 alpha-2 country the upstream categorises for (it requires one). Default: the institution's country.",
  })
  @IsOptional()
  @Matches(/^[A-Z]{2}$/, { message: 'countryCode must be an ISO 3166-1 alpha-2 code, e.g. GB' })
  countryCode?: string;
}

/** An amount the caller sends (a payment's, a funds check's): validated, as the upstream will. */
export class AmountInputDto {
  @ApiProperty({
    example: '12.34',
    description: 'Decimal string, greater than 0, at most 2 decimals (never a JSON number)',
  })
  @IsString()
  @Matches(/^(?:0|[1-9]\d{0,12})(?:\.\d{1,2})?$/, {
    message: 'amount must be a decimal string with at most 2 decimals',
  })
  @Matches(/[1-9]/, { message: 'amount must be greater than 0' })
  amount: string;

  @ApiProperty({ example: 'GBP' })
  @IsString()
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code' })
  currency: string;
}

export class FundsConfirmationDto {
  @ApiPropertyOptional({ maxLength: 18, example: 'Top-up' })
  @IsOptional()
  @IsString()
  @MaxLength(18)
  reference?: string;

  @ApiProperty({ type: AmountInputDto })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => AmountInputDto)
  amount: AmountInputDto;
}

export class MoneyViewDto {
  @ApiProperty({ example: '12.34' }) amount: string;
  @ApiProperty({ example: 'GBP' }) currency: string;
}

export class StatementDto {
  @ApiProperty() id: string;
  @ApiPropertyOptional({ format: 'date-time' }) startDateTime?: string;
  @ApiPropertyOptional({ format: 'date-time' }) endDateTime?: string;
  @ApiPropertyOptional({ format: 'date-time' }) creationDateTime?: string;
}

export class BeneficiaryDto {
  @ApiProperty() id: string;
  @ApiPropertyOptional() trusted?: boolean;
  @ApiPropertyOptional() reference?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) payee?: unknown;
}

export class LiveTransactionDto {
  @ApiPropertyOptional() id?: string;
  @ApiPropertyOptional({ format: 'date-time' }) date?: string;
  @ApiPropertyOptional() status?: string;
  @ApiPropertyOptional({ example: '-12.34', description: 'Decimal string' }) amount?: string;
  @ApiPropertyOptional() currency?: string;
  @ApiPropertyOptional({
    type: MoneyViewDto,
    description: 'Every other upstream field is passed on; each `amount` is a decimal string',
  })
  transactionAmount?: MoneyViewDto;
  @ApiPropertyOptional() description?: string;
}

export class CategorisationResultDto {
  @ApiProperty() categorisationId: string;
  @ApiProperty({ type: [LiveTransactionDto] }) transactions: LiveTransactionDto[];
}

export class VrpPeriodicLimitViewDto {
  @ApiProperty({ example: 'MONTHLY' }) frequency: string;
  @ApiProperty({ nullable: true, example: 'CALENDAR', type: String }) alignment: string | null;
  @ApiProperty({ type: MoneyViewDto }) totalMaxAmount: MoneyViewDto;
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true, description: '{ start, end }' })
  currentPeriod: unknown;
  @ApiProperty({
    type: MoneyViewDto,
    nullable: true,
    description:
      "Sum of this BFF's payments under the consent in the current period (failed ones excluded); 0 when none. Null only for a frequency the BFF does not know.",
  })
  paidInCurrentPeriod: MoneyViewDto | null;
}

export class VrpControlParametersViewDto {
  @ApiProperty({ type: [String] }) psuAuthenticationMethods: string[];
  @ApiProperty({ type: MoneyViewDto, nullable: true }) maxAmountPerPayment: MoneyViewDto | null;
  @ApiProperty({ nullable: true, type: String }) validFrom: string | null;
  @ApiProperty({ nullable: true, type: String }) validTo: string | null;
  @ApiProperty({ type: [VrpPeriodicLimitViewDto] }) periodicLimits: VrpPeriodicLimitViewDto[];
}

export class VrpConsentDto {
  @ApiProperty() id: string;
  @ApiProperty() upstreamConsentId: string;
  @ApiProperty() institutionId: string;
  @ApiProperty({ nullable: true, type: String }) status: string | null;
  @ApiProperty({ nullable: true, type: String }) createdAt: string | null;
  @ApiProperty({ nullable: true, type: String }) authorizedAt: string | null;
  @ApiProperty({ type: VrpControlParametersViewDto }) controlParameters: VrpControlParametersViewDto;
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true }) initiationDetails: unknown;
}

export class FundsConfirmationViewDto {
  @ApiProperty({ nullable: true, type: String }) id: string | null;
  @ApiProperty({ nullable: true, type: String }) reference: string | null;
  @ApiProperty({ type: MoneyViewDto }) amount: MoneyViewDto;
  @ApiProperty() fundsAvailable: boolean;
  @ApiProperty({ nullable: true, type: String }) fundsAvailableAt: string | null;
}

export class HostedVrpRequestViewDto {
  @ApiProperty() requestId: string;
  @ApiPropertyOptional() applicationUserId?: string;
  @ApiPropertyOptional({ format: 'date-time' }) createdAt?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: '{ currentStatus: created|succeed|rejected|failed|expired, statusUpdatedAt, … }',
  })
  status?: unknown;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: '{ upstreamConsentId } once succeeded; the consent token is never returned',
  })
  result?: unknown;
}
