import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { AUDIT_ACTIONS, type AuditAction } from '#libs/domain/audit';
import { ListQuery } from '../paging.js';

/** `?limit=&cursor=&action=` of an audit log page. */
export class AuditListInput extends ListQuery() {
  @ApiPropertyOptional({ enum: AUDIT_ACTIONS, description: 'Only entries of this action' })
  @IsOptional()
  @IsIn(AUDIT_ACTIONS, { message: `action must be one of: ${AUDIT_ACTIONS.join(', ')}` })
  action?: AuditAction;
}
