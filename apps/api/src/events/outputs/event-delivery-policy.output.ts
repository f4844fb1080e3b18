import { ApiProperty } from '@nestjs/swagger';

/** How this deployment attempts deliveries, retries them, gives up, and disables an endpoint. */
export class EventDeliveryPolicyOutput {
  @ApiProperty({
    type: 'integer',
    example: 5000,
    description: 'An attempt not answered (status and body) within this long fails',
  })
  attemptTimeoutMs!: number;
  @ApiProperty({ type: 'integer', example: 30, description: 'The first retry’s nominal delay' })
  backoffBaseSeconds!: number;
  @ApiProperty({
    type: 'integer',
    example: 3600,
    description: 'Each further retry’s delay doubles, up to this',
  })
  backoffCapSeconds!: number;
  @ApiProperty({
    example: 0.2,
    description: 'Each delay is its nominal one times a random factor within ±this',
  })
  jitterRatio!: number;
  @ApiProperty({
    type: 'integer',
    example: 24,
    description:
      'A delivery is retried while the next attempt falls within this long after the event was recorded (EVENT_DELIVERY_RETRY_HOURS); then it is FAILED',
  })
  retryWindowHours!: number;
  @ApiProperty({
    type: 'integer',
    example: 72,
    description: 'An endpoint with no successful delivery for this long is disabled',
  })
  disableAfterHours!: number;
  @ApiProperty({
    type: 'integer',
    example: 30,
    description:
      'Events, deliveries and their attempts are kept this long (EVENT_RETENTION_DAYS): the oldest a recovery can reach',
  })
  retentionDays!: number;
  @ApiProperty({
    type: 'integer',
    isArray: true,
    example: [0, 30, 90, 210, 450],
    description:
      'When each attempt of a delivery failing every time is made, in seconds after the event was recorded: nominal (no jitter, attempts taking no time). The first is at 0; after the last, the delivery is FAILED',
  })
  nominalAttemptOffsetsSeconds!: number[];
  @ApiProperty({
    type: 'integer',
    example: 1000,
    description:
      'For an endpoint with a rateLimit: a delivery starts only while fewer than rateLimit are in flight or were answered within this window, so the endpoint receives at most rateLimit in any window this long. The others wait, each for a turn of its own, about this window over rateLimit apart: a wait is not an attempt and does not use up the retry schedule',
  })
  throttleWindowMs!: number;
}
