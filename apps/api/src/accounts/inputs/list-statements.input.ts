import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional } from 'class-validator';
import { PageCursor, PageLimit } from '../../common/paging.js';

const LIMIT = 1000;

export class ListStatementsInput {
  @ApiPropertyOptional({ format: 'date-time', description: 'Inclusive lower bound' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Inclusive upper bound' })
  @IsOptional()
  @IsISO8601({ strict: true })
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
