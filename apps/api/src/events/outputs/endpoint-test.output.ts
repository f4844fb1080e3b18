import { ApiProperty } from '@nestjs/swagger';
import { ENDPOINT_TEST_EVENT } from '#libs/domain/events';
import {
  DeliveryAttemptRequestOutput,
  DeliveryAttemptResponseOutput,
} from './event-delivery-attempt.output.js';
import { MERCHANT_EVENT_OUTPUTS } from './merchant-event.output.js';

const EndpointTestEventOutput = MERCHANT_EVENT_OUTPUTS[ENDPOINT_TEST_EVENT.type];

/** What one test delivery met (nothing of it is recorded: it is in no delivery log or events list). */
export class EndpointTestOutput {
  @ApiProperty({ type: EndpointTestEventOutput, description: 'The event sent: the signed body' })
  event!: InstanceType<typeof EndpointTestEventOutput>;
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
