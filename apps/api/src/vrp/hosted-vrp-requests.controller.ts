import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { HostedVrpRequestsService } from '#libs/domain/payments';
import { ApiAnswer, Auth, AuthKind, envelope, Tenant } from '#libs/http';
import { ApiMissing, upstreamFailures } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { HostedVrpRequestOutput } from './outputs/hosted-vrp-request.output.js';

@ApiTags('vrp')
@Auth(AuthKind.Merchant)
@Controller('v1/hosted/vrp-requests')
export class HostedVrpRequestsController {
  constructor(private readonly hosted: HostedVrpRequestsService) {}

  @Get(':requestId')
  @ApiOperation({
    summary: 'A commercial hosted VRP request and its status',
    description:
      "A request made through POST /v1/users/{userId}/hosted/vrp-requests is the merchant's by our record: once it succeeded, the first read takes its consent (stored as our VRP_COMMERCIAL consent, `consentId`). Any other request is asked upstream as the merchant's sub-application, which owns it: another application's is 404, and a merchant without a sub-application (sharing the root application) gets 404 NOT_FOUND for it. The consent token is never returned, only the upstream consent id.",
  })
  @ApiAnswer(200, HostedVrpRequestOutput)
  @ApiMissing()
  @upstreamFailures()
  async get(@IdParam('requestId') requestId: string, @Tenant() caller: TenantCaller) {
    return envelope(await this.hosted.get(caller, requestId));
  }
}
