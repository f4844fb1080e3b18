import { ApiProperty } from '@nestjs/swagger';
import { SYNC_RUN_TRIGGERS, SYNC_RUN_TRIGGERS_DESCRIPTION } from '#libs/domain/sync-runs';

// A sync run as GET /v1/syncs/{syncId} shows it, shared: GET /v1/lookup answers runs too.

export class SyncWindowOutput {
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'Inclusive; null = all the consent allows',
  })
  from: string | null;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'Exclusive: the run’s start',
  })
  before: string | null;
}

export class SyncProgressOutput {
  @ApiProperty() pages: number;
  @ApiProperty() fetched: number;
  @ApiProperty() inserted: number;
  @ApiProperty() updated: number;
  @ApiProperty() unchanged: number;
  @ApiProperty() removed: number;
}

export class SyncErrorOutput {
  @ApiProperty({ example: 'CONSENT_EXPIRED' }) code: string;
  @ApiProperty({ nullable: true, type: String }) message: string | null;
  @ApiProperty({
    nullable: true,
    type: 'object',
    additionalProperties: true,
    description: '{ upstreamKind, status, tracingId, institutionError } of the upstream failure',
  })
  upstream: unknown;
}

export class SyncRunOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) accountId: string;
  @ApiProperty({
    enum: ['queued', 'running', 'succeeded', 'failed'],
    description:
      'running: being read, or waiting for its next attempt after a failed one (`error` says why, `nextAttemptAt` when); failed: its attempts are spent or the failure is permanent (`error`)',
  })
  status: string;
  @ApiProperty({ enum: SYNC_RUN_TRIGGERS, description: SYNC_RUN_TRIGGERS_DESCRIPTION }) trigger: string;
  @ApiProperty({ type: SyncWindowOutput }) window: SyncWindowOutput;
  @ApiProperty({ type: SyncProgressOutput }) progress: SyncProgressOutput;
  @ApiProperty({ format: 'date-time' }) queuedAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) startedAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) finishedAt: string | null;
  @ApiProperty({ description: 'Attempts started so far (a worker that died mid-run counts too)' })
  attempts: number;
  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description:
      'When the next attempt starts: while queued, when it was queued (at once); while running after a failed attempt, the retry’s time (the account’s `sync.nextSyncAt` too); null while an attempt runs or once ended',
  })
  nextAttemptAt: string | null;
  @ApiProperty({
    type: SyncErrorOutput,
    nullable: true,
    description:
      'Why the run failed, or while it runs why its last attempt failed; null on success. `upstream.tracingId` is the upstream’s id of the failure (an earlier attempt’s when the last got none)',
  })
  error: SyncErrorOutput | null;
}
