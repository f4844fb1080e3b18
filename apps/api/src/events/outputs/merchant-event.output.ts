import { ApiProperty } from '@nestjs/swagger';
import { MERCHANT_EVENT_TYPE_NAMES } from '#libs/domain/events';
import { EVENT_TYPES_DESCRIPTION } from '../event-types.js';

/** An event as POSTed to a merchant's endpoint (and sent down a user's stream). */
export class MerchantEventOutput {
  @ApiProperty({ format: 'uuid', description: 'Stable across retries and endpoints: deduplicate on it' })
  id!: string;
  @ApiProperty({ enum: MERCHANT_EVENT_TYPE_NAMES }) type!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) userId!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: true, description: EVENT_TYPES_DESCRIPTION })
  data!: Record<string, unknown>;
}
