import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { Omittable } from '../../common/omittable.js';

/** scheme://host[:port], nothing more: exactly what a browser sends in `Origin`. */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

export class CreateMerchantInput {
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
