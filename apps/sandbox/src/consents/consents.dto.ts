import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsInt,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
} from 'class-validator';

const asList = ({ value }: { value: unknown }) =>
  (Array.isArray(value) ? value : [value])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter((v) => v.length > 0);

/** GET /consents: the filters of the upstream, plus offset paging. */
export class ConsentsQueryDto {
  @IsOptional() @Transform(asList) @IsString({ each: true }) 'filter[applicationUserId]'?: string[];
  @IsOptional() @Transform(asList) @IsUUID('all', { each: true }) 'filter[userUuid]'?: string[];
  @IsOptional() @Transform(asList) @IsString({ each: true }) 'filter[institution]'?: string[];
  @IsOptional() @Transform(asList) @IsString({ each: true }) 'filter[status]'?: string[];
  @IsOptional() @IsISO8601() from?: string;
  @IsOptional() @IsISO8601() before?: string;
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000) limit?: number;
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) offset?: number;
}

export class DeleteConsentQueryDto {
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  forceDelete?: boolean;
}

export class ExtendConsentDto {
  @IsISO8601({ strict: true }) lastConfirmedAt: string;
}

export class OneTimeTokenDto {
  @IsString() @IsNotEmpty() @MaxLength(500) oneTimeToken: string;
}
