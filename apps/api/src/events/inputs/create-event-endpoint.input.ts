import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { MERCHANT_EVENT_TYPE_NAMES, type MerchantEventType } from '#libs/domain/events';
import { EVENT_TYPES_DESCRIPTION } from '../event-types.js';
import { EventEndpointFields } from './event-endpoint-fields.js';

export const ENDPOINT_URL_DESCRIPTION =
  'Where events are POSTed. https (http is accepted outside production); in production, private, loopback and link-local addresses are refused. Redirects are not followed.';

export class CreateEventEndpointInput {
  @ApiProperty({
    example: 'https://merchant.example/webhooks/open-banking',
    description: ENDPOINT_URL_DESCRIPTION,
  })
  @EventEndpointFields.url()
  url!: string;

  @ApiPropertyOptional({
    type: [String],
    enum: MERCHANT_EVENT_TYPE_NAMES,
    default: [],
    description: `The event types to receive; empty or absent: all of them.\n\n${EVENT_TYPES_DESCRIPTION}`,
  })
  @IsOptional()
  @EventEndpointFields.types()
  types?: MerchantEventType[];

  @EventEndpointFields.rateLimit()
  rateLimit?: number | null;
}
