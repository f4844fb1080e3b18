import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
} from 'class-validator';
import { UUID_PATTERN } from '#libs/ids';

/** Category names as the upstream writes them (`payment.state.success`); the upstream judges the rest. */
const CATEGORY = /^[A-Za-z0-9._-]{1,100}$/;

export class RegisterUpstreamWebhookInput {
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      "Register for this merchant's sub-application (the `sub-application` header upstream). Omitted, or a merchant without one: the root application.",
  })
  @IsOptional()
  @IsString()
  @Matches(UUID_PATTERN, { message: 'merchantId must be a UUID' })
  merchantId?: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['payment.state.success', 'consent.state.revoked'],
    maxItems: 50,
    description:
      'Event categories (GET /admin/upstream/webhook-categories). Omitted: every one the upstream offers.',
  })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Matches(CATEGORY, { each: true, message: 'each categories entry must be an upstream category name' })
  categories?: string[];

  @ApiPropertyOptional({
    example: 'https://bff.example/v1/webhooks/upstream',
    description:
      'Where the upstream delivers (it must reach it). Omitted: API_PUBLIC_URL + `/v1/webhooks/upstream`, our receiver.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  callbackUrl?: string;
}
