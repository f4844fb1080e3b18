import { ApiProperty } from '@nestjs/swagger';
import { RESPONSE_EXCERPT_BYTES } from '#libs/domain/events';

/** The request an attempt sent. */
export class DeliveryAttemptRequestOutput {
  @ApiProperty({ description: 'The endpoint’s URL when it was sent' }) url!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'The headers sent: `content-type`, `user-agent` and the Standard Webhooks `webhook-id`, `webhook-timestamp` and `webhook-signature` (verifiable with the endpoint’s secret, and with the previous one during a rotation).',
    example: {
      'content-type': 'application/json',
      'user-agent': 'open-banking-bff-events/1.0',
      'webhook-id': '0190c0de-0000-7000-8000-000000000000',
      'webhook-timestamp': '1764198000',
      'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    },
  })
  headers!: Record<string, string>;
  @ApiProperty({
    description: 'The body exactly as sent and signed: the event (MerchantEventOutput) as JSON',
  })
  body!: string;
}

/** What the endpoint answered to an attempt. */
export class DeliveryAttemptResponseOutput {
  @ApiProperty({ type: 'integer' }) status!: number;
  @ApiProperty({ type: String, nullable: true, description: 'The answer’s `content-type` header' })
  contentType!: string | null;
  @ApiProperty({
    description: `The start of the answer’s body as text: its first ${RESPONSE_EXCERPT_BYTES / 1024} KiB at most`,
  })
  body!: string;
  @ApiProperty({ description: 'The body went on past what `body` holds' }) bodyTruncated!: boolean;
}

/** One attempt of a delivery: when, how long, what was sent, what came back. */
export class EventDeliveryAttemptOutput {
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: 'Its number, counted from 1 over the delivery’s life (a manual retry continues the count)',
  })
  attempt!: number;
  @ApiProperty({ format: 'date-time', description: 'When the attempt ended' }) attemptedAt!: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'From sending to the end of the answer' })
  durationMs!: number;
  @ApiProperty({
    type: DeliveryAttemptRequestOutput,
    description:
      'What was sent; for an attempt refused before sending (an address deliveries may not reach), what would have been',
  })
  request!: DeliveryAttemptRequestOutput;
  @ApiProperty({
    type: DeliveryAttemptResponseOutput,
    nullable: true,
    description: 'Null when the endpoint gave no answer (refused, unreachable, timed out)',
  })
  response!: DeliveryAttemptResponseOutput | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why it was not delivered; null when it was' })
  error!: string | null;
}
