import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

export const PPC_USER_GROUPS = [
  'WHOLESALE_FI_FI',
  'COMMERCIAL',
  'CONSUMER_GOODS_SERVICES',
  'FINANCE',
  'INSURANCE',
  'PROPERTY',
  'UTILITIES',
  'TAX',
  'SALARIES_INCOMES',
  'INVESTMENTS',
  'FOREIGN_EXCHANGE',
  'GOVERNMENT',
  'BENEFIT_PAYMENTS',
  'MEDICAL',
  'PENSIONS',
] as const;

export const APPLICATION_SORTS = ['last_updated', '-last_updated', 'name', '-name', 'uuid', '-uuid'] as const;

/** ApplicationRequest: the upstream documents the code as a 4-digit string and shows it as a number. */
export class CreateApplicationDto {
  @IsDefined() @IsString() @MaxLength(100) @Matches(/^[a-zA-Z0-9 \-_[\]()]+$/) name: string;
  @IsDefined()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'number' ? String(value).padStart(4, '0') : value,
  )
  @IsString()
  @Matches(/^\d{4}$/)
  merchantCategoryCode: string;
  @IsDefined() @IsIn(PPC_USER_GROUPS) ppcUserGroup: string;
  @IsDefined() @IsBoolean() isContractPresent: boolean;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }, { each: true })
  callbackUrls?: string[];
}

export class ApplicationsQueryDto {
  @IsOptional()
  @Transform(({ value }: { value: unknown }) =>
    (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(',')),
  )
  @ArrayMaxSize(15)
  @IsUUID('all', { each: true })
  applicationIds?: string[];
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) offset?: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000) limit?: number;
  @IsOptional() @IsIn(APPLICATION_SORTS) sort?: (typeof APPLICATION_SORTS)[number];
}
