import { ApiProperty } from '@nestjs/swagger';
import { EventEndpointOutput } from '../../common/outputs/event-endpoint.output.js';

export class EventEndpointWithSecretOutput {
  @ApiProperty({ type: EventEndpointOutput }) endpoint!: EventEndpointOutput;
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description:
      'The Standard Webhooks signing secret, shown this once: verify deliveries with it (the official `standardwebhooks` library).',
  })
  secret!: string;
}
