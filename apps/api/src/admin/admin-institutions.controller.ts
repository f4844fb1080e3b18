import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { AuditAction } from '#libs/domain/audit';
import { InstitutionsService } from '#libs/domain/institutions';
import { ApiAnswer, ApiErrorResponse, Auth, AuthKind, envelope } from '#libs/http';
import { Audited } from '../common/audit/audited.decorator.js';
import { InstitutionsRefreshOutput } from './outputs/institutions-refresh.output.js';

@ApiTags('operator')
@Auth(AuthKind.Operator)
@Controller('admin/institutions')
export class AdminInstitutionsController {
  constructor(private readonly institutions: InstitutionsService) {}

  @Post('refresh')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Refresh the institutions cache now',
    description:
      'Replaces the cache with the upstream list in one transaction (rows the upstream no longer lists are deleted). An empty upstream list leaves the cache as it is.',
  })
  @ApiAnswer(200, InstitutionsRefreshOutput)
  @ApiServiceUnavailableResponse({ type: ApiErrorResponse, description: 'UPSTREAM_UNAVAILABLE' })
  @Audited(AuditAction.InstitutionsRefresh, { resource: 'institutions' })
  async refresh() {
    return envelope(await this.institutions.refreshInstitutions());
  }
}
