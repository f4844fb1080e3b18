import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { RememberedQuery } from '#libs/http';
import { PageCursor, PageLimit } from '../../common/paging.js';

const LIMIT = { default: 100, max: 500 };

/** The transactions change feed's query: where to start, how many changes, and optionally one account. */
@RememberedQuery()
export class ListTransactionChangesInput {
  @PageCursor({
    description:
      '`nextCursor` of the previous page of this user’s feed; none to start from the beginning (every stored record, as added)',
  })
  cursor?: string;

  @PageLimit(LIMIT)
  limit: number = LIMIT.default;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only this account’s changes (one of the user’s)' })
  @IsOptional()
  @IsUUID()
  accountId?: string;
}
