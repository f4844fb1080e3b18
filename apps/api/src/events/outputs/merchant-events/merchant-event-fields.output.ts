import { ApiProperty } from '@nestjs/swagger';
import {
  type DeliveredEventType,
  ENDPOINT_TEST_EVENT,
  MERCHANT_EVENT_TYPE_NAMES,
  MERCHANT_EVENT_TYPES,
  type MerchantEventType,
} from '#libs/domain/events';

/**
 * What every merchant event carries, whatever its type (the wire shape, `MerchantEventWire`): each
 * type's schema extends it with `type` as its single value and `data` as its own schema. Not a schema
 * itself.
 */
export abstract class MerchantEventFields {
  @ApiProperty({ format: 'uuid', description: 'Stable across retries and endpoints: deduplicate on it' })
  id!: string;
  @ApiProperty({
    enum: [...MERCHANT_EVENT_TYPE_NAMES, ENDPOINT_TEST_EVENT.type],
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

/** A type's schema description: what it means, from the catalogue. */
export const meaningOf = (type: MerchantEventType): string => MERCHANT_EVENT_TYPES[type].description;
