import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { FinancialDataService } from '#libs/domain/financial-data';
import { ApiEnvelope, ApiErrorResponse, Auth, AuthKind, Principal, TracingId, envelope } from '#libs/http';
import { callerOf, missing, upstreamFailures } from './account-data.controller.js';
import { FundsConfirmationDto, FundsConfirmationViewDto, VrpConsentDto } from './data.dto.js';

@ApiTags('vrp')
@Auth(AuthKind.Merchant, AuthKind.UserSession)
@Controller('v1/vrp/consents')
export class VrpConsentsController {
  constructor(private readonly data: FinancialDataService) {}

  @Get(':consentId')
  @ApiOperation({
    summary: 'A sweeping VRP consent',
    description:
      "The upstream's consent with its control parameters (amounts as decimal strings) and, per periodic limit, the current period and the amount already paid in it, summed from this BFF's own payments under the consent (0 when there are none).",
  })
  @ApiOkResponse({ type: ApiEnvelope(VrpConsentDto) })
  @ApiNotFoundResponse(missing)
  @upstreamFailures()
  async get(
    @Param('consentId') consentId: string,
    @Principal() principal: Principal,
    @TracingId() tracingId: string,
  ) {
    return envelope(tracingId, await this.data.vrpConsent(callerOf(principal), consentId, tracingId));
  }

  @Post(':consentId/funds-confirmation')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Confirm the payer has the funds for a VRP payment',
    description:
      'Nothing is created, so 200 and no Idempotency-Key. The amount is a decimal string; it reaches the upstream as the exactly equal JSON number.',
  })
  @ApiOkResponse({ type: ApiEnvelope(FundsConfirmationViewDto) })
  @ApiBadRequestResponse({ type: ApiErrorResponse, description: 'VALIDATION_FAILED' })
  @ApiNotFoundResponse(missing)
  @upstreamFailures()
  async fundsConfirmation(
    @Param('consentId') consentId: string,
    @Body() body: FundsConfirmationDto,
    @Principal() principal: Principal,
    @TracingId() tracingId: string,
  ) {
    return envelope(
      tracingId,
      await this.data.fundsConfirmation(callerOf(principal), consentId, body, tracingId),
    );
  }
}
