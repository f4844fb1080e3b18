import { ApiProperty } from '@nestjs/swagger';
import { MERCHANT_EVENT_TYPE_NAMES } from '#libs/domain/events';

export class EventDeliveryOutput {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid', description: 'The event id: the `webhook-id` header and `id` of the body' })
  eventId!: string;
  @ApiProperty({ enum: MERCHANT_EVENT_TYPE_NAMES, description: 'The event’s `type` (MerchantEventOutput)' })
  eventType!: string;
  @ApiProperty({ enum: ['PENDING', 'SUCCEEDED', 'FAILED'] }) status!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) nextAttemptAt!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) lastAttemptAt!: string | null;
  @ApiProperty({ nullable: true, type: Number }) lastResponseStatus!: number | null;
  @ApiProperty({ nullable: true, type: String }) lastError!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) deliveredAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}
