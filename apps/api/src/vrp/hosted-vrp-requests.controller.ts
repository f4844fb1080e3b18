import { Controller, Get, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { FinancialDataService } from '#libs/domain/financial-data';
import { ApiAnswer, Auth, AuthKind, envelope, Tenant } from '#libs/http';
import { missing, upstreamFailures } from '../common/api-responses.js';
import { HostedVrpRequestOutput } from './outputs/hosted-vrp-request.output.js';

@ApiTags('vrp')
@Auth(AuthKind.Merchant)
@Controller('v1/hosted/vrp-requests')
export class HostedVrpRequestsController {
  constructor(private readonly data: FinancialDataService) {}

  @Get(':requestId')
  @ApiOperation({
    summary: 'A commercial hosted VRP request and its status',
    description:
      "Asked upstream as the merchant's sub-application, which owns the request: another application's request is 404. A merchant without a sub-application shares the upstream root application with other merchants and cannot prove it owns a hosted request, so it always gets 404 NOT_FOUND. The consent token of a succeeded request is never returned, only the upstream consent id.",
  })
  @ApiAnswer(200, HostedVrpRequestOutput)
  @ApiNotFoundResponse(missing)
  @upstreamFailures()
  async get(@Param('requestId') requestId: string, @Tenant() caller: TenantCaller) {
    return envelope(await this.data.hostedVrpRequest(caller, requestId));
  }
}
