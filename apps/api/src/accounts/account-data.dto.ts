import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { MoneyViewDto } from '../common/money.dto.js';

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
