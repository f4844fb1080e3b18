import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { RememberedQuery } from '#libs/http';
import { OptionalDateTime, OptionalRangeEnd } from '../../common/field-rules.js';
import { PageCursor, PageLimit } from '../../common/paging.js';

const LIMIT = 1000;

@RememberedQuery()
export class ListStatementsInput {
  @OptionalDateTime('Inclusive lower bound')
  from?: string;

  @OptionalRangeEnd('Exclusive upper bound')
  before?: string;

  @PageLimit({ default: LIMIT, max: LIMIT })
  limit: number = LIMIT;

  @ApiPropertyOptional({ enum: ['date', '-date'], default: '-date' })
  @IsOptional()
  @IsIn(['date', '-date'])
  sort?: 'date' | '-date';

  @PageCursor({
    description:
      '`meta.nextCursor` of the previous page; it carries that walk’s `from`, `before` and `sort`, so send only `limit` with it',
    maxLength: 2048,
  })
  cursor?: string;
}
