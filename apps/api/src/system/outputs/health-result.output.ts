import { ApiProperty } from '@nestjs/swagger';

/** Terminus's answer when every check passes (its own 503 body never leaves: the error filter sends ours). */
export class HealthResultOutput {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'object', properties: { status: { type: 'string', enum: ['up'] } } },
    description: 'One entry per dependency checked',
  })
  details: Record<string, { status: 'up' }>;
}
