import { ApiProperty } from '@nestjs/swagger';

/** Terminus's answer when every check passes (its own 503 body never leaves: the error filter sends ours). */
export class HealthResultOutput {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['up'] },
        detail: { type: 'string' },
        receiver: { type: 'string', enum: ['registered', 'missing', 'unknown'] },
        applicationsWithoutReceiver: { type: 'array', items: { type: 'string' } },
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
