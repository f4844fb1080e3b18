import { applyDecorators } from '@nestjs/common';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { DATA_READ_FEATURES, IsMoneyAmount } from '../core/index.js';

/*
 * A list's optional `limit`: a whole number from `min` to `max`, refused in the upstream's words. Listed
 * in the order the stacked `@IsOptional() @Type(...) @IsInt() @Min() @Max()` applied them (bottom up),
 * so the issues keep their order.
 */
function PageLimit(min: number, max: number): PropertyDecorator {
  const range = `between ${min} and ${max}`;
  return applyDecorators(
    Max(max, { message: `limit must be ${range}` }),
    Min(min, { message: `limit must be ${range}` }),
    IsInt({ message: `limit must be an integer ${range}` }),
    Type(() => Number),
    IsOptional(),
  );
}

/** Query of the offset-paged lists (upstream spec §4.2.1); dates are checked by the paging rules, not here. */
export class OffsetListQueryDto {
  @IsOptional() @IsString() @MaxLength(64) from?: string;
  @IsOptional() @IsString() @MaxLength(64) before?: string;

  @PageLimit(1, 1000) limit?: number;

  @IsOptional()
  @IsIn(['date', '-date'], { message: "sort must be 'date' (ascending) or '-date' (descending)" })
  sort?: 'date' | '-date';

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'offset must be a non-negative integer' })
  @Min(0, { message: 'offset must be a non-negative integer' })
  @Max(2_147_483_647, { message: 'offset is too large' })
  offset?: number;

  /** "Not currently in use" on this route (openapi): accepted and ignored. */
  @IsOptional() @IsString() cursor?: string;
}

export class TransactionsQueryDto extends OffsetListQueryDto {
  /** Enrichment to add: `categorisation` and/or `merchant`, comma-separated or repeated. */
  @IsOptional() with?: string | string[];
}

export class RealTimeTransactionsQueryDto {
  @IsOptional() @IsString() @MaxLength(64) from?: string;
  @IsOptional() @IsString() @MaxLength(64) before?: string;
  @IsOptional() @IsString() @MaxLength(512) cursor?: string;
}

/**
 * Both fields are mandatory upstream (its OpenAPI `required`); their absence is answered in Data Plus's
 * own MANDATORY shape by the controller, so they are optional to the validation pipe.
 */
export class CategorisationRequestDto {
  @IsOptional()
  @IsIn(['consumer', 'business'], { message: "categorisationType must be 'consumer' or 'business'" })
  categorisationType?: 'consumer' | 'business';

  @IsOptional()
  @Matches(/^[A-Z]{2}$/, { message: 'countryCode must be an ISO 3166-1 alpha-2 code, e.g. GB' })
  countryCode?: string;

  @IsOptional() @IsString() @MaxLength(64) from?: string;
  @IsOptional() @IsString() @MaxLength(64) before?: string;
}

export class CategorisedTransactionsQueryDto {
  @PageLimit(100, 1000) limit?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'page must be an integer of at least 1' })
  @Min(1, { message: 'page must be an integer of at least 1' })
  page?: number;
}

// ---- control API

export class CreateDataConsentDto {
  @IsOptional() @IsUUID() applicationId?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200) applicationUserId?: string;
  @IsOptional() @IsUUID() userUuid?: string;
  @IsString() @MinLength(1) @MaxLength(100) institutionId: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsIn(DATA_READ_FEATURES, { each: true })
  featureScope?: string[];

  @IsOptional() @IsISO8601({ strict: true }) transactionFrom?: string;
  @IsOptional() @IsISO8601({ strict: true }) transactionTo?: string;
  @IsOptional() @IsISO8601({ strict: true }) expiresAt?: string;
}

export class AddTransactionDto {
  @IsMoneyAmount({ signed: true, max: 1_000_000_000 })
  amount: number;

  @IsOptional() @IsString() @MinLength(1) @MaxLength(500) description?: string;
  @IsOptional() @IsString() @MaxLength(140) reference?: string;
  @IsOptional() @IsIn(['BOOKED', 'PENDING']) status?: 'BOOKED' | 'PENDING';
  @IsOptional() @IsISO8601({ strict: true }) date?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) merchantName?: string;
  @IsOptional() @Matches(/^[a-z_]{1,40}$/) category?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) id?: string;
}

export class ChangeTransactionDto {
  @IsOptional()
  @IsMoneyAmount({ signed: true, max: 1_000_000_000 })
  amount?: number;

  @IsOptional() @IsString() @MinLength(1) @MaxLength(500) description?: string;
  @IsOptional() @IsString() @MaxLength(140) reference?: string;
  @IsOptional() @IsIn(['BOOKED', 'PENDING']) status?: 'BOOKED' | 'PENDING';
  @IsOptional() @IsISO8601({ strict: true }) date?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) id?: string;
}
