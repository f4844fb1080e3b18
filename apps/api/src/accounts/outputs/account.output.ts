import { ApiProperty } from '@nestjs/swagger';
import { UNATTENDED_READS_PER_DAY } from '#libs/domain/accounts';
import { MoneyOutput } from '../../common/outputs/money.output.js';

export class BalanceOutput {
  @ApiProperty({ example: 'INTERIM_AVAILABLE' }) type: string;
  @ApiProperty({ type: MoneyOutput }) balance: MoneyOutput;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) dateTime: string | null;
  @ApiProperty({ type: Boolean, nullable: true }) creditLineIncluded: boolean | null;
}

/** An account's `sync.status` as the API shows it (the stored list's `meta.syncStatus` too). */
export const SYNC_STATUS_VIEWS = ['pending', 'syncing', 'synced', 'failed', 'stopped'];

export class UnattendedReadsOutput {
  @ApiProperty({
    example: UNATTENDED_READS_PER_DAY,
    description: `The bank's daily allowance: PSD2's ${UNATTENDED_READS_PER_DAY}, or what the operator set for the institution`,
  })
  perDay: number;
  @ApiProperty({
    description:
      'Taken today (UTC): syncs and live reads without `psu-ip-address`, counted before the bank is asked and given back when its answer shows it did not count them',
  })
  used: number;
  @ApiProperty({
    description:
      'Left today; 0 while the bank holds the account (`dailyLimitUntil`). Scheduled syncs spread them over the day; past them a manual sync or a live read without the user answers 429 `DAILY_LIMIT_REACHED`',
  })
  remaining: number;
  @ApiProperty({
    format: 'date-time',
    description:
      'When all are back: the next UTC midnight, or the end of the bank’s hold. A time past (a kept answer) means they are',
  })
  resetsAt: string;
}

export class SyncSummaryOutput {
  @ApiProperty({
    enum: SYNC_STATUS_VIEWS,
    description: 'Lower case, like the consent’s `sync.status` (`stopped`: the consent no longer allows it)',
  })
  status: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastSyncedAt: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'When the next try is: the interval after a success, sooner after a failure, at once when a sync is asked for, and the run’s `nextAttemptAt` while it waits to retry (null: stopped)',
  })
  nextSyncAt: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why the last sync failed, or why syncs stopped (the consent’s state); while a sync retries, its last attempt’s error. Null after a success',
  })
  lastError: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'Since when syncs have failed (the first failed attempt since the last success); null while they succeed. A failed account is tried again after as long as it has been failing: 5 minutes at first, the sync interval at most',
  })
  failingSince: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description:
      'Set when the bank refused a read because its daily allowance of reads of this account without the user present was spent (PSD2: four a day at most banks): until then syncs wait and `POST …/sync` answers 429 `DAILY_LIMIT_REACHED`; reads with the user present still go through. A time past means the allowance is back; the next successful sync clears it',
  })
  dailyLimitUntil: string | null;
  @ApiProperty({
    type: UnattendedReadsOutput,
    description: "Reads of the account without the user present, against the bank's daily allowance",
  })
  unattendedReads: UnattendedReadsOutput;
}

export class AccountOutput {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) userId: string;
  @ApiProperty({ format: 'uuid' }) consentId: string;
  @ApiProperty() institutionId: string;
  @ApiProperty({ description: 'The upstream’s account id (quote it to the upstream’s support)' })
  upstreamAccountId: string;
  @ApiProperty({ type: String, nullable: true }) type: string | null;
  @ApiProperty({ type: String, nullable: true }) usageType: string | null;
  @ApiProperty({ type: String, nullable: true }) currency: string | null;
  @ApiProperty({ type: String, nullable: true }) nickname: string | null;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  accountNames: unknown;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  accountIdentifications: unknown;
  @ApiProperty({ type: [BalanceOutput] }) balances: BalanceOutput[];
  @ApiProperty({ type: SyncSummaryOutput }) sync: SyncSummaryOutput;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}
