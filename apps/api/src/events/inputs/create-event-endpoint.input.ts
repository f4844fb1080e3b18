import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';
import { MERCHANT_EVENT_TYPE_NAMES, type MerchantEventType } from '#libs/domain/events';
import { EVENT_TYPES_DESCRIPTION } from '../event-types.js';

export class CreateEventEndpointInput {
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
    description: `The event types to receive; empty or absent: all of them.\n\n${EVENT_TYPES_DESCRIPTION}`,
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
