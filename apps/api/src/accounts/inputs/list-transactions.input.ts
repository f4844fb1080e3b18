import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { RememberedQuery } from '#libs/http';
import { OptionalDateTime, OptionalRangeEnd } from '../../common/field-rules.js';
import { PageCursor, PageLimit } from '../../common/paging.js';

const LIMIT = { default: 100, max: 1000 };

/** The stored transactions' query: a range on `date`, an order, a status, and the page. */
@RememberedQuery()
export class ListTransactionsInput {
  @OptionalDateTime('Inclusive lower bound on `date`')
  from?: string;

  @OptionalRangeEnd('Exclusive upper bound on `date`')
  before?: string;

  @ApiPropertyOptional({ enum: ['date', '-date'], default: '-date' })
  @IsOptional()
  @IsIn(['date', '-date'])
  sort: 'date' | '-date' = '-date';

  @PageLimit(LIMIT)
  limit: number = LIMIT.default;

  @ApiPropertyOptional({ example: 'BOOKED', description: 'Only records of this upstream status' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z_]{1,64}$/, { message: 'status must be an upstream status such as BOOKED or PENDING' })
  status?: string;

  @PageCursor({
    description:
      '`meta.nextCursor` of the previous page; send the same `from`, `before`, `status` and `sort` with it',
    maxLength: 512,
  })
  cursor?: string;
}
