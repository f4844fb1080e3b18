import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiListMeta } from '#libs/http';
import { ApiOpenSchema } from '../../common/openapi-open-schemas.js';
import { MoneyOutput } from '../../common/outputs/money.output.js';
import { SYNC_STATUS_VIEWS } from './account.output.js';

/**
 * A transaction record, the same shape stored, live and categorised (see servedTransaction): the
 * upstream's record with every field it carries, every `amount` a decimal string, and these always set.
 */
@ApiOpenSchema()
export class TransactionOutput {
  /** Open: the fields the upstream gives beyond those named (see ApiOpenSchema). */
  [field: string]: unknown;
  @ApiProperty({ description: "The upstream's id; for a record without one, the stable key we dedupe it by" })
  id: string;
  @ApiProperty({ format: 'date-time', description: 'What ranges and order apply to' }) date: string;
  @ApiProperty({ example: '-12.34', description: 'Decimal string; negative is money out' }) amount: string;
  @ApiProperty({ example: 'GBP' }) currency: string;
  @ApiPropertyOptional({ example: 'BOOKED', description: 'Absent when the bank gives none' })
  status?: string;
  @ApiPropertyOptional({
    type: MoneyOutput,
    description:
      'The bank’s own amount; absent when it gives none. Every other upstream field is passed on; each `amount` is a decimal string',
  })
  transactionAmount?: MoneyOutput;
  @ApiPropertyOptional({ description: 'Absent when the bank gives none' }) description?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'Categories, merchant and hash, where the bank gives them; on the live list, from the stored copy (absent on a record no sync has stored yet)',
  })
  enrichment?: Record<string, unknown>;
  @ApiPropertyOptional({
    example: 'Immutable',
    description:
      'Whether the bank may still change the record, where it says so; on the live list, from the stored copy (absent on a record no sync has stored yet)',
  })
  transactionMutability?: string;
}

export class CategorisationOutput {
  @ApiProperty() categorisationId: string;
  @ApiProperty({ type: [TransactionOutput] }) transactions: TransactionOutput[];
}

/** `meta` of the stored list: the page, and whether the list is whole. */
export class StoredTransactionsMeta extends ApiListMeta {
  @ApiProperty({
    description:
      'True once a sync of the account has succeeded: its first reads everything the consent allows, so the list is whole up to the last successful sync. False until then, failed first syncs included: the list holds the pages written so far (newest first, so the oldest are missing); `syncError` says why when a sync failed. Wait for consent.synced or sync.succeeded, then read again',
  })
  complete: boolean;
  @ApiProperty({
    enum: SYNC_STATUS_VIEWS,
    description: 'The account’s `sync.status`',
  })
  syncStatus: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'The account’s `sync.lastError`: why its last sync (or the running sync’s last attempt) failed, or why it stopped; null while nothing failed',
  })
  syncError: string | null;
}
