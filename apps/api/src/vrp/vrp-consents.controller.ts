import { Body, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { VrpConsentsService } from '#libs/domain/payments';
import { ApiAnswer, envelope, Tenant } from '#libs/http';
import { ApiInvalid, ApiMissing, upstreamFailures } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { SessionReachableController } from '../common/session-reachable.decorator.js';
import { ConfirmFundsInput } from './inputs/confirm-funds.input.js';
import { FundsConfirmationOutput } from './outputs/funds-confirmation.output.js';
import { VrpConsentOutput } from './outputs/vrp-consent.output.js';

@SessionReachableController('vrp', 'v1/vrp/consents')
export class VrpConsentsController {
  constructor(private readonly consents: VrpConsentsService) {}

  @Get(':consentId')
  @ApiOperation({
    summary: 'A sweeping VRP consent',
    description:
      "The consent's status as the upstream holds it, the control parameters payments are checked against (amounts as decimal strings) and, per periodic limit, the current period, the period's limit (pro-rated in a first CALENDAR period), what this BFF's payments under the consent add up to in it, and what is left: the most one more payment may be now. These come from the very query the limit check runs, at the same clock.",
  })
  @ApiAnswer(200, VrpConsentOutput)
  @ApiMissing()
  @upstreamFailures()
  async get(@IdParam('consentId') consentId: string, @Tenant() caller: TenantCaller) {
    return envelope(await this.consents.view(caller, consentId));
  }

  @Post(':consentId/funds-confirmation')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Confirm the payer has the funds for a VRP payment',
    description:
      'Nothing is created, so 200 and no Idempotency-Key. The amount is a decimal string as for a payment (at most the currency’s decimals, at most 15 significant digits); it reaches the upstream as the exactly equal JSON number.',
  })
  @ApiAnswer(200, FundsConfirmationOutput)
  @ApiInvalid()
  @ApiMissing()
  @upstreamFailures()
  async fundsConfirmation(
    @IdParam('consentId') consentId: string,
    @Body() body: ConfirmFundsInput,
    @Tenant() caller: TenantCaller,
  ) {
    return envelope(await this.consents.fundsConfirmation(caller, consentId, body));
  }
}
