import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, Auth, AuthKind, Principal, TracingId, envelope } from '#libs/http';
import { MeOutput } from './outputs/me.output.js';

@ApiTags('merchant')
@Controller('v1/me')
export class MeController {
  @Get()
  @Auth(AuthKind.Merchant, AuthKind.UserSession)
  @ApiOperation({
    summary: 'Who am I',
    description:
      'The caller as the BFF sees it: an API key names its merchant, a session token also its user.',
  })
  @ApiOkResponse({ type: ApiEnvelope(MeOutput) })
  me(@Principal() principal: Principal, @TracingId() tracingId: string) {
    return envelope(tracingId, {
      kind: principal.kind,
      merchantId: principal.merchantId,
      ...(principal.userId ? { userId: principal.userId } : {}),
    });
  }
}
