import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { TenantCaller } from '#libs/context';
import { MerchantService } from '#libs/domain/merchants';
import { ApiAnswer, Auth, AuthKind, envelope, Tenant } from '#libs/http';
import { MeOutput } from './outputs/me.output.js';

@ApiTags('merchant')
@Controller('v1/me')
export class MeController {
  constructor(private readonly merchants: MerchantService) {}

  @Get()
  @Auth(AuthKind.Merchant, AuthKind.UserSession)
  @ApiOperation({
    summary: 'Who am I',
    description:
      "The caller as the BFF sees it: an API key names its merchant, a session token also its user; and the browser origins the merchant allows, with whether the request's own is one. Readable from any origin (CORS), unlike every other route: `<bff-connect>` asks it first, to say plainly when its page's origin is not allowed.",
  })
  @ApiAnswer(200, MeOutput)
  async me(@Tenant() caller: TenantCaller, @Req() request: FastifyRequest) {
    // Read off the request, not with @Headers: the browser sets Origin, no client declares it.
    const { origin } = request.headers;
    const frontendOrigins = await this.merchants.frontendOriginsOf(caller);
    return envelope({
      kind: caller.kind,
      merchantId: caller.merchantId,
      ...(caller.userId ? { userId: caller.userId } : {}),
      frontendOrigins,
      ...(origin === undefined ? {} : { originAllowed: frontendOrigins.includes(origin) }),
    });
  }
}
