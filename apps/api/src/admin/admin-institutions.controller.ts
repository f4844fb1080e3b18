import { Body, Controller, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { UNATTENDED_READS_PER_DAY } from '#libs/domain/accounts';
import { AuditAction } from '#libs/domain/audit';
import { InstitutionsService } from '#libs/domain/institutions';
import { ApiAnswer, ApiErrorResponse, Auth, AuthKind, envelope } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { Audited } from '../common/audit/audited.decorator.js';
import { SetUnattendedReadsInput } from './inputs/set-unattended-reads.input.js';
import { InstitutionAllowanceOutput } from './outputs/institution-allowance.output.js';
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

  @Put(':institutionId/unattended-reads')
  @ApiOperation({
    summary: "Set a bank's daily allowance of reads without the user",
    description: `How many times a day each account at this bank may be read without the user present (a scheduled or manual sync, a live read without \`psu-ip-address\`): PSD2's ${UNATTENDED_READS_PER_DAY} unless the bank allows otherwise. Every account's \`sync.unattendedReads\` shows it at once; scheduled syncs spread it over the day. Kept across catalogue refreshes; lost if the upstream stops listing the bank.`,
  })
  @ApiAnswer(200, InstitutionAllowanceOutput)
  @ApiInvalid()
  @ApiNotFoundResponse({ type: ApiErrorResponse, description: 'NOT_FOUND: not in the institutions cache' })
  @Audited(AuditAction.InstitutionAllowanceSet, {
    resource: 'institution',
    id: 'institutionId',
    fields: true,
  })
  async setUnattendedReads(
    @Param('institutionId') institutionId: string,
    @Body() body: SetUnattendedReadsInput,
  ) {
    return envelope(await this.institutions.setUnattendedReadsPerDay(institutionId, body.perDay));
  }
}
