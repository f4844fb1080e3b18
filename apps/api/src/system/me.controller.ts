import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { ApiAnswer, Auth, AuthKind, envelope, Tenant } from '#libs/http';
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
  @ApiAnswer(200, MeOutput)
  me(@Tenant() caller: TenantCaller) {
    return envelope({
      kind: caller.kind,
      merchantId: caller.merchantId,
      ...(caller.userId ? { userId: caller.userId } : {}),
    });
  }
}
