import { Body, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { HostedVrpRequestsService, VrpConsentsService } from '#libs/domain/payments';
import { ApiAnswer, ApiPsuHeaders, envelope, Psu, type PsuInput, Tenant } from '#libs/http';
import { ApiFeatureUnsupported, ApiInvalid, ApiMissing, ApiUpstreamErrors } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { SessionReachableController } from '../common/session-reachable.decorator.js';
import { CreateHostedVrpRequestInput } from './inputs/create-hosted-vrp-request.input.js';
import { CreateVrpConsentInput } from './inputs/create-vrp-consent.input.js';
import { CreatedVrpConsentOutput } from './outputs/created-vrp-consent.output.js';
import { CreatedHostedVrpRequestOutput } from './outputs/hosted-vrp-request.output.js';

/** Setting up VRP for a user, sweeping or commercial (docs/payments.md). */
@SessionReachableController('payments', 'v1/users')
export class UserVrpConsentsController {
  constructor(
    private readonly vrp: VrpConsentsService,
    private readonly hosted: HostedVrpRequestsService,
  ) {}

  @Post(':userId/vrp/consents')
  @Idempotent()
  @ApiOperation({
    summary: 'Set up sweeping VRP (the user approves the limits at the bank)',
    description:
      'Accepts an Idempotency-Key. Checks the limits (one currency, at least one periodic limit, dates in order), fills the defaults (alignment CONSENT, psuAuthenticationMethods [SCA_NOT_REQUIRED], validFrom now) and answers the consent, AWAITING_AUTHORIZATION, with the bank’s `authorisationUrl`. After the bank the browser is sent to `redirectUrl?consentId=…&status=AUTHORIZED`; then pay with POST /v1/vrp/consents/{consentId}/payments.',
  })
  @ApiAnswer(201, CreatedVrpConsentOutput)
  @ApiInvalid('VALIDATION_FAILED: bad limits, payee or redirectUrl, or the upstream refused them')
  @ApiMissing()
  @ApiFeatureUnsupported()
  @ApiUpstreamErrors()
  async createVrpConsent(
    @IdParam('userId') userId: string,
    @Body() body: CreateVrpConsentInput,
    @Tenant() caller: TenantCaller,
  ) {
    return envelope(await this.vrp.create(caller, userId, body));
  }

  @Post(':userId/hosted/vrp-requests')
  @Idempotent()
  @ApiPsuHeaders()
  @ApiOperation({
    summary: 'Set up commercial VRP on the upstream’s hosted page',
    description:
      'Accepts an Idempotency-Key. Checks the limits (one currency, sane amounts, dates in order; periods start when the consent does) and asks the upstream for a hosted request (its shape from the upstream’s OpenAPI: the spec shows none). Send the user to `hostedUrl`; they approve the limits at their bank, and the hosted page sends them to `redirectUrl`. Then GET /v1/hosted/vrp-requests/{requestId}: once `status.currentStatus` is `succeed` it carries `consentId`, our VRP_COMMERCIAL consent, to pay with POST /v1/vrp/consents/{consentId}/payments (as the merchant, without the user present).',
  })
  @ApiAnswer(201, CreatedHostedVrpRequestOutput)
  @ApiInvalid(
    'VALIDATION_FAILED: bad limits, payee, risk details or redirectUrl, or the upstream refused them',
  )
  @ApiMissing()
  @ApiFeatureUnsupported()
  @ApiUpstreamErrors()
  async createHostedVrpRequest(
    @IdParam('userId') userId: string,
    @Body() body: CreateHostedVrpRequestInput,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    return envelope(await this.hosted.create(caller, userId, body, psu));
  }
}
