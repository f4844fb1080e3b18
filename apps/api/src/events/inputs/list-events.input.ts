import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { MERCHANT_EVENT_TYPE_NAMES, type MerchantEventType } from '#libs/domain/events';
import { OptionalDateTime, OptionalRangeEnd } from '../../common/field-rules.js';
import { ListQuery } from '../../common/paging.js';

export class ListEventsInput extends ListQuery() {
  @ApiPropertyOptional({ enum: MERCHANT_EVENT_TYPE_NAMES, description: 'Only events of this type' })
  @IsOptional()
  @IsIn(MERCHANT_EVENT_TYPE_NAMES)
  type?: MerchantEventType;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only events about this user' })
  @IsOptional()
  @IsUUID()
  userId?: string;

  @OptionalDateTime('Only events recorded at or after this time')
  from?: string;

  @OptionalRangeEnd('Only events recorded before this time')
  before?: string;
}
