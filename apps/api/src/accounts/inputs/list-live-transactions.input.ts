import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional } from 'class-validator';
import { PageCursor } from '../../common/paging.js';

export class ListLiveTransactionsInput {
  @ApiPropertyOptional({ format: 'date-time', description: 'First page only' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'First page only' })
  @IsOptional()
  @IsISO8601({ strict: true })
  before?: string;

  @PageCursor({
    description: 'Opaque cursor from meta.nextCursor (then from/before are refused)',
    nonEmpty: true,
    maxLength: 4096,
  })
  cursor?: string;
}
