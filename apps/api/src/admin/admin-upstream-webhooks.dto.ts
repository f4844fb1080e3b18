import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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

export class RegisterUpstreamWebhookDto {
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

export class UpstreamWebhookDto {
  @ApiProperty({ format: 'uuid', description: 'Our registration id' }) id!: string;
  @ApiProperty({ description: 'The root application or the sub-application it was made for' })
  applicationId!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Null: the root application' })
  merchantId!: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The upstream's webhook id" })
  upstreamWebhookId!: string | null;
  @ApiProperty({ type: [String] }) categories!: string[];
  @ApiProperty() callbackUrl!: string;
  @ApiProperty({ type: String, nullable: true, description: "The upstream's status, verbatim" })
  status!: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'Replaced (by a newer registration or a secret reset) or removed upstream; its secret still verifies for UPSTREAM_WEBHOOK_SECRET_GRACE_HOURS',
  })
  retiredAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class UpstreamWebhookCategoryDto {
  @ApiProperty({ example: 'payment.state.success' }) name!: string;
  @ApiPropertyOptional() description?: string;
}

export class MigrationStepDto {
  @ApiProperty({ enum: ['list-subscriptions', 'delete-subscription', 'list-categories', 'register'] })
  step!: string;
  @ApiPropertyOptional({ description: 'The eventTypeId deleted, or the callback URL registered' })
  target?: string;
  @ApiProperty({ enum: ['done', 'skipped', 'failed'] }) outcome!: string;
  @ApiPropertyOptional() detail?: string;
}

export class UpstreamWebhookMigrationDto {
  @ApiProperty() applicationId!: string;
  @ApiProperty({ type: [MigrationStepDto] }) steps!: MigrationStepDto[];
  @ApiPropertyOptional({ type: UpstreamWebhookDto, description: 'The registration now in use' })
  registration?: UpstreamWebhookDto;
}
