import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { UUID_PATTERN } from '#libs/ids';
import { AuditListInput } from '../../common/inputs/audit-list.input.js';

/** The operator's audit page: any merchant's entries, or one merchant's. */
export class AdminAuditListInput extends AuditListInput {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only entries concerning this merchant' })
  @IsOptional()
  @IsString()
  @Matches(UUID_PATTERN, { message: 'merchantId must be a UUID' })
  merchantId?: string;
}
