import { ApiProperty } from '@nestjs/swagger';
import { MERCHANT_EVENT_TYPE_NAMES } from '#libs/domain/events';

/** A merchant's event endpoint: to the merchant, and (with its merchant) to the operator. */
export class EventEndpointOutput {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ type: [String], enum: MERCHANT_EVENT_TYPE_NAMES, description: 'Empty: every type' })
  types!: string[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'After a rotation: until then, deliveries carry a signature with the previous secret too',
  })
  previousSecretExpiresAt!: string | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'The first failed attempt since the last successful one; null while deliveries succeed',
  })
  failingSince!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) disabledAt!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Why deliveries stopped (automatic disable)' })
  disabledReason!: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 20,
    description:
      'At most this many deliveries a second (null: no limit); past it deliveries wait their turn, without failing. See rateLimit on POST /v1/event-endpoints.',
  })
  rateLimit!: number | null;
}
