import { ApiProperty } from '@nestjs/swagger';

export class WebhookReceivedOutput {
  @ApiProperty({ description: 'The sender’s event id (webhook-id)' }) eventId!: string;
  @ApiProperty({ description: 'True when this event id was received before: nothing changed' })
  duplicate!: boolean;
}
