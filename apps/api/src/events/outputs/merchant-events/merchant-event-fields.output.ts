import { ApiProperty } from '@nestjs/swagger';
import { DELIVERED_EVENT_TYPES, type DeliveredEventType } from '#libs/domain/events';

/**
 * What every merchant event carries, whatever its type (the wire shape, `MerchantEventWire`): each
 * type's schema (made from the catalogue by merchant-event.output.ts) adds `type` as its single value and
 * `data` as the component the catalogue names. Not a schema itself.
 */
export abstract class MerchantEventFields {
  @ApiProperty({ format: 'uuid', description: 'Stable across retries and endpoints: deduplicate on it' })
  id!: string;
  @ApiProperty({
    enum: Object.keys(DELIVERED_EVENT_TYPES),
    description: 'What happened: says what `data` holds',
  })
  type!: DeliveredEventType;
  @ApiProperty({ format: 'date-time', description: 'When the change it announces was recorded' })
  createdAt!: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The user it is about' })
  userId!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'The user’s reference (the merchant’s own id for them) when the event was recorded: the same on every delivery, even after the user is renamed. Null without a user',
  })
  userReference!: string | null;
}
