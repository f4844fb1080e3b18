import { ApiProperty } from '@nestjs/swagger';
import { TransactionOutput } from './transaction.output.js';

/** A record of the feed, with the account it belongs to: a copy keys records by (accountId, id). */
export class TransactionChangeOutput {
  @ApiProperty({ format: 'uuid' }) accountId: string;
  @ApiProperty({ type: TransactionOutput, description: 'As the stored list serves it now' })
  transaction: TransactionOutput;
}

export class TransactionRemovalOutput {
  @ApiProperty({ format: 'uuid' }) accountId: string;
  @ApiProperty({ description: 'The removed record’s `id`' }) id: string;
}

/** A page of the transactions change feed: apply `added` and `modified` as upserts, then `removed`. */
export class TransactionChangesOutput {
  @ApiProperty({ type: [TransactionChangeOutput], description: 'Records new to a reader at the cursor' })
  added: TransactionChangeOutput[];

  @ApiProperty({
    type: [TransactionChangeOutput],
    description: 'Records a reader at the cursor has, changed since',
  })
  modified: TransactionChangeOutput[];

  @ApiProperty({
    type: [TransactionRemovalOutput],
    description: 'Records the bank no longer lists (a pending record booked under a new id, a deletion)',
  })
  removed: TransactionRemovalOutput[];

  @ApiProperty({
    description: 'Where the next page starts; keep it even when the page is empty, and ask again later',
  })
  nextCursor: string;

  @ApiProperty({ description: 'More changes are waiting: ask again at once with nextCursor' })
  hasMore: boolean;
}
