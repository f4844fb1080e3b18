import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class UpstreamWebhookOutput {
  @ApiProperty({ format: 'uuid', description: 'Our registration id' }) id!: string;
  @ApiProperty({ description: 'The root application or the sub-application it was made for' })
  applicationId!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Null: the root application' })
  merchantId!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The merchant’s name as it is now; null: the root application',
  })
  merchantName!: string | null;
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
      'Replaced (by a newer registration or a secret reset) or removed upstream; its secret still verifies for 24 hours',
  })
  retiredAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class UpstreamWebhookCategoryOutput {
  @ApiProperty({ example: 'payment.state.success' }) name!: string;
  @ApiPropertyOptional({ description: "The upstream's description; absent when it gives none" })
  description?: string;
}

export class MigrationStepOutput {
  @ApiProperty({ enum: ['list-subscriptions', 'delete-subscription', 'list-categories', 'register'] })
  step!: string;
  @ApiPropertyOptional({
    description:
      'The eventTypeId deleted, or the callback URL registered; absent from list-subscriptions and list-categories',
  })
  target?: string;
  @ApiProperty({ enum: ['done', 'skipped', 'failed'] }) outcome!: string;
  @ApiPropertyOptional({
    description:
      'What was found or done (the subscriptions found, the categories offered, the webhook registered); absent from a delete-subscription that was done',
  })
  detail?: string;
}

export class UpstreamWebhookMigrationOutput {
  @ApiProperty() applicationId!: string;
  @ApiProperty({ type: [MigrationStepOutput] }) steps!: MigrationStepOutput[];
  @ApiProperty({ type: UpstreamWebhookOutput, description: 'The registration now in use' })
  registration!: UpstreamWebhookOutput;
}
