import { ApiProperty } from '@nestjs/swagger';

/** Terminus's answer when every check passes (its own 503 body never leaves: the error filter sends ours). */
export class HealthResultOutput {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['status'],
      properties: {
        status: { type: 'string', enum: ['up'] },
        detail: { type: 'string', description: '`upstream` only: what it answered (`HTTP 200`)' },
        receiver: {
          type: 'string',
          enum: ['registered', 'missing', 'unknown'],
          description: '`upstreamWebhooks` only',
        },
        applicationsWithoutReceiver: {
          type: 'array',
          items: { type: 'string' },
          description: 'With `receiver: missing` only',
        },
      },
    },
    description:
      'One entry per dependency checked. `upstreamWebhooks` (readiness only) is never down: `receiver: missing` names the applications holding consents with no receiver registered upstream (POST /admin/upstream/webhooks); `unknown` while Postgres does not answer.',
  })
  details: Record<
    string,
    {
      status: 'up';
      detail?: string;
      receiver?: 'registered' | 'missing' | 'unknown';
      applicationsWithoutReceiver?: string[];
    }
  >;
}
