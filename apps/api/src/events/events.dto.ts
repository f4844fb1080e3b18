import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';
import { MERCHANT_EVENT_TYPES, MERCHANT_EVENT_TYPE_NAMES, type MerchantEventType } from '#libs/domain/events';
import { EventEndpointDto } from '../common/event-endpoint.dto.js';

const TYPES_DESCRIPTION = MERCHANT_EVENT_TYPE_NAMES.map(
  (t) =>
    `- \`${t}\`: ${MERCHANT_EVENT_TYPES[t].description} \`data\`: ${MERCHANT_EVENT_TYPES[t].data.join(', ')}.`,
).join('\n');

export class CreateEventEndpointDto {
  @ApiProperty({
    example: 'https://merchant.example/webhooks/open-banking',
    description:
      'Where events are POSTed. https (http is accepted outside production); in production, private, loopback and link-local addresses are refused. Redirects are not followed.',
  })
  @IsString()
  @MaxLength(2048)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  url!: string;

  @ApiPropertyOptional({
    type: [String],
    enum: MERCHANT_EVENT_TYPE_NAMES,
    default: [],
    description: `The event types to receive; empty or absent: all of them.\n\n${TYPES_DESCRIPTION}`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MERCHANT_EVENT_TYPE_NAMES.length)
  @IsIn(MERCHANT_EVENT_TYPE_NAMES, {
    each: true,
    message: `types must be event types: ${MERCHANT_EVENT_TYPE_NAMES.join(', ')}`,
  })
  types?: MerchantEventType[];
}

export class EventEndpointWithSecretDto {
  @ApiProperty({ type: EventEndpointDto }) endpoint!: EventEndpointDto;
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description:
      'The Standard Webhooks signing secret, shown this once: verify deliveries with it (the official `standardwebhooks` library).',
  })
  secret!: string;
}

export class EventDeliveryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid', description: 'The event id: the `webhook-id` header and `id` of the body' })
  eventId!: string;
  @ApiProperty({ enum: MERCHANT_EVENT_TYPE_NAMES }) eventType!: string;
  @ApiProperty({ enum: ['PENDING', 'SUCCEEDED', 'FAILED'] }) status!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) nextAttemptAt!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) lastAttemptAt!: string | null;
  @ApiProperty({ nullable: true, type: Number }) lastResponseStatus!: number | null;
  @ApiProperty({ nullable: true, type: String }) lastError!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) deliveredAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class MerchantEventDto {
  @ApiProperty({ format: 'uuid', description: 'Stable across retries and endpoints: deduplicate on it' })
  id!: string;
  @ApiProperty({ enum: MERCHANT_EVENT_TYPE_NAMES }) type!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) userId!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: TYPES_DESCRIPTION })
  data!: Record<string, unknown>;
}
