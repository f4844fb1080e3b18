import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AUDIT_POSITION, AuditTrailService } from '#libs/domain/audit';
import { ApiAnswer, Auth, AuthKind } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { AuditEntryOutput } from '../common/outputs/audit-entry.output.js';
import { keysetPage } from '../common/paging.js';
import { AdminAuditListInput } from './inputs/admin-audit-list.input.js';

@ApiTags('operator')
@Auth(AuthKind.Operator)
@Controller('admin/audit')
export class AdminAuditController {
  constructor(private readonly audit: AuditTrailService) {}

  @Get()
  @ApiOperation({
    summary: 'The audit log',
    description:
      "Every administrative action, the operator's and the merchants' on their own integration, newest first: who (`operator`, or a merchant's API key id), what, on which resource, when, from which address, and the request's tracing id. Append-only; entries go only after AUDIT_RETENTION_DAYS. Never a secret: a change names the fields it set, not their values.",
  })
  @ApiAnswer(200, AuditEntryOutput, { list: true })
  @ApiInvalid('VALIDATION_FAILED (a bad cursor, action or merchantId too)')
  async list(@Query() query: AdminAuditListInput) {
    const page = keysetPage(query, '/admin/audit', {
      key: AUDIT_POSITION,
      filters: { merchantId: query.merchantId, action: query.action },
    });
    const { entries, nextBefore } = await this.audit.page({
      merchantId: query.merchantId,
      action: query.action,
      before: page.after,
      limit: page.limit,
    });
    return page.answer(entries, nextBefore);
  }
}
