import { ApiProperty } from '@nestjs/swagger';
import { TUNING } from '#libs/config';

/** What one recovery call scheduled. */
export class DeliveryRecoveryOutput {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: `Failed deliveries made pending again and sent now, oldest first: at most ${TUNING.eventRecoveryBatch} a call`,
  })
  scheduled!: number;
  @ApiProperty({
    description:
      'More failed deliveries since `since` are left: call again (with a new Idempotency-Key) until false',
  })
  more!: boolean;
}
