import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { RedirectConsentsService } from '#libs/domain/consents';
import { ApiErrorResponse, Public } from '#libs/http';
import { ConsentCallbackInput } from './inputs/consent-callback.input.js';

@ApiTags('consents')
@Controller('v1/callbacks/consents')
export class ConsentCallbacksController {
  constructor(private readonly consents: RedirectConsentsService) {}

  // Public: the user's browser arrives here from the bank with no credentials of ours; the signed,
  // single-use state is what authenticates the request.
  @Get()
  @Public()
  @ApiOperation({
    summary: 'Redirect-flow callback (the browser, from the bank)',
    description:
      "Verifies our signed, single-use state, exchanges the one-time token, stores the consent token encrypted and the accounts, then 302s to the consent's `redirectUrl?consentId=…&status=AUTHORIZED` (or `status=REJECTED&error=…`, `status=FAILED&error=server_error`). An invalid, expired or used state answers 400 without a redirect: nothing in it can be trusted.",
  })
  @ApiResponse({ status: 302, description: "To the merchant's redirectUrl" })
  @ApiBadRequestResponse({
    type: ApiErrorResponse,
    description: 'VALIDATION_FAILED: invalid, expired or used state',
  })
  async callback(@Query() query: ConsentCallbackInput, @Res() reply: FastifyReply): Promise<void> {
    const location = await this.consents.completeCallback({
      bffState: query.bffState,
      oneTimeToken: query.oneTimeToken,
      consentId: query.consentId,
      state: query.state,
      error: query.error,
      errorDescription: query.error_description,
    });
    // This URL carried the one-time token: no Referer to the merchant's page, and no caching of the answer.
    await reply
      .status(302)
      .header('location', location)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .send();
  }
}
