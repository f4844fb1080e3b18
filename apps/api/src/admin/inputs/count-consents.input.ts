import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { RememberedQuery } from '#libs/http';
import { OptionalDateTime } from '../../common/field-rules.js';

@RememberedQuery()
export class CountConsentsInput {
  @ApiPropertyOptional({ example: 'AUTHORIZED', description: 'Only consents in this status' })
  @IsOptional()
  @Matches(/^[A-Z_]{1,64}$/, { message: 'status must be a consent status such as AUTHORIZED' })
  status?: string;

  @OptionalDateTime('Only consents expiring before this time')
  expiringBefore?: string;
}
