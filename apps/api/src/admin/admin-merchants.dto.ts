import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { Omittable } from '../common/omittable.js';

/** scheme://host[:port], nothing more: exactly what a browser sends in `Origin`. */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

export class CreateMerchantDto {
  @ApiProperty({ example: 'Acme Payments', maxLength: 255 })
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  name: string;

  @ApiPropertyOptional({
    description:
      'Upstream sub-application to act as; checked with the upstream. Omitted: the root application.',
    maxLength: 255,
  })
  @Omittable()
  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,255}$/, { message: 'subApplicationId must be an upstream application id' })
  subApplicationId?: string;

  @ApiPropertyOptional({ type: [String], example: ['https://app.acme.example'], maxItems: 20 })
  @Omittable()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Matches(ORIGIN, {
    each: true,
    message: 'each frontendOrigins entry must be an origin like https://app.example',
  })
  frontendOrigins?: string[];
}

export class RotateApiKeyDto {
  @ApiPropertyOptional({ description: 'Operator label to tell keys apart', maxLength: 255 })
  @Omittable()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  name?: string;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Public head of the key, safe to show' }) prefix: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastUsedAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expiresAt: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revokedAt: string | null;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({
    required: false,
    description:
      'The API key itself. Shown only in the first answer; store it now. Absent from an idempotent replay.',
  })
  key?: string;
}

export class MerchantDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) subApplicationId: string | null;
  @ApiProperty({ type: String, nullable: true }) subApplicationName: string | null;
  @ApiProperty({ type: [String] }) frontendOrigins: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) disabledAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: [ApiKeyDto], description: 'Every key, never the key itself' }) apiKeys: ApiKeyDto[];
}

export class CreatedMerchantDto {
  @ApiProperty({ type: MerchantDto }) merchant: MerchantDto;
  @ApiProperty({ type: CreatedApiKeyDto }) apiKey: CreatedApiKeyDto;
}

export class UpstreamApplicationDto {
  @ApiProperty() id: string;
  @ApiPropertyOptional() name?: string;
  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'number' }] }) merchantCategoryCode?:
    number | string;
  @ApiPropertyOptional() ppcUserGroup?: string;
  @ApiPropertyOptional({ type: [String] }) callbackUrls?: string[];
  @ApiPropertyOptional() isContractPresent?: boolean;
  @ApiPropertyOptional() rootApplicationId?: string;
}
