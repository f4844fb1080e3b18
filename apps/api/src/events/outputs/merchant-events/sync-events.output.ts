import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { SYNC_FAILURE_CODES } from '#libs/domain/sync';
import { SYNC_RUN_TRIGGERS, SYNC_RUN_TRIGGERS_DESCRIPTION } from '#libs/domain/sync-runs';

// The `sync.*` and `transactions.changed` events: what AccountSyncService (libs/domain/sync) records of a
// run as it ends.

export class SyncEventWindow {
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Inclusive; null: from the beginning, as far back as the consent allows',
  })
  from!: string | null;
  @ApiProperty({
    format: 'date-time',
    description: 'Exclusive: when the run started reading (for a run that failed before, when it failed)',
  })
  before!: string;
}

@ApiSchema({ description: 'The run’s counts, over all its attempts' })
export class SyncEventProgress {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Pages read from the bank' }) pages!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Records the bank returned' }) fetched!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Transactions stored that were not before' })
  inserted!: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Stored transactions that changed' })
  updated!: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description: 'Stored transactions the bank returned as they were',
  })
  unchanged!: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    description:
      'Stored transactions of the window the bank no longer returns (a pending one that settled, …)',
  })
  removed!: number;
}

export class SyncEventError {
  @ApiProperty({
    enum: Object.keys(SYNC_FAILURE_CODES),
    description: Object.entries(SYNC_FAILURE_CODES)
      .map(([code, meaning]) => `${code}: ${meaning}`)
      .join('; '),
  })
  code!: string;
  @ApiProperty({ description: 'What went wrong, for people (the bank’s own message when it gave one)' })
  message!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The upstream’s tracing id of the failure (of an earlier attempt when the last got none): quote it to the upstream’s support; GET /v1/lookup/{id} finds the run by it. Null when no answer came',
  })
  upstreamTracingId!: string | null;
}

@ApiSchema({ description: '`data` of sync.succeeded and transactions.changed: one sync run of one account' })
export class SyncEventData {
  @ApiProperty({ format: 'uuid', description: 'The run: GET /v1/syncs/{syncId}' }) syncId!: string;
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty({ format: 'uuid', description: 'The consent the account was synced through' })
  consentId!: string;
  @ApiProperty({ enum: SYNC_RUN_TRIGGERS, description: SYNC_RUN_TRIGGERS_DESCRIPTION })
  trigger!: string;
  @ApiProperty({ type: SyncEventWindow, description: 'The time window the run read' })
  window!: SyncEventWindow;
  @ApiProperty({ type: SyncEventProgress }) progress!: SyncEventProgress;
}

@ApiSchema({ description: '`data` of sync.failed: the run, and why it failed' })
export class SyncFailedEventData extends SyncEventData {
  @ApiProperty({ type: SyncEventError }) error!: SyncEventError;
}

@ApiSchema({ description: 'One account’s first sync under the consent' })
export class ConsentSyncedAccount {
  @ApiProperty({ format: 'uuid' }) accountId!: string;
  @ApiProperty({ format: 'uuid', description: 'The run: GET /v1/syncs/{syncId}' }) syncId!: string;
  @ApiProperty({ enum: ['succeeded', 'failed'] }) status!: string;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Transactions it stored' }) inserted!: number;
}

@ApiSchema({ description: '`data` of consent.synced: every account’s first sync under the consent' })
export class ConsentSyncedEventData {
  @ApiProperty({ format: 'uuid' }) consentId!: string;
  @ApiProperty({ example: 'sandbox-redirect' }) institutionId!: string;
  @ApiProperty({ type: [ConsentSyncedAccount] }) accounts!: ConsentSyncedAccount[];
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Transactions stored by all of them' })
  inserted!: number;
}
