import { ApiProperty } from '@nestjs/swagger';
import {
  DeliveryAttemptRequestOutput,
  DeliveryAttemptResponseOutput,
} from './event-delivery-attempt.output.js';
import { EndpointTestEventOutput } from './merchant-events/endpoint-test-event.output.js';

/** What one test delivery met (nothing of it is recorded: it is in no delivery log or events list). */
export class EndpointTestOutput {
  @ApiProperty({ type: EndpointTestEventOutput, description: 'The event sent: the signed body' })
  event!: EndpointTestEventOutput;
  @ApiProperty({ description: 'The endpoint answered 2xx' }) delivered!: boolean;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Its HTTP status; null when it gave none (refused, unreachable, timed out)',
  })
  responseStatus!: number | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why it was not delivered' })
  error!: string | null;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'From sending to the answer' })
  durationMs!: number;
  @ApiProperty({
    type: DeliveryAttemptRequestOutput,
    description: 'What was sent, as an attempt log shows it',
  })
  request!: DeliveryAttemptRequestOutput;
  @ApiProperty({
    type: DeliveryAttemptResponseOutput,
    nullable: true,
    description: 'What came back, as an attempt log shows it; null when no answer came',
  })
  response!: DeliveryAttemptResponseOutput | null;
}
