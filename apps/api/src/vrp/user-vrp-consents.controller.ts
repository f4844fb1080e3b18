import { Body, Controller, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { VrpConsentsService } from '#libs/domain/payments';
import { ApiAnswer, Auth, AuthKind, envelope, Tenant } from '#libs/http';
import { ApiFeatureUnsupported, ApiInvalid, ApiMissing, ApiUpstreamErrors } from '../common/api-responses.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { CreateVrpConsentInput } from './inputs/create-vrp-consent.input.js';
import { CreatedVrpConsentOutput } from './outputs/created-vrp-consent.output.js';

/** Setting up a sweeping VRP consent for a user (docs/payments.md). */
@ApiTags('payments')
@Auth(AuthKind.Merchant, AuthKind.UserSession)
@Controller('v1/users')
export class UserVrpConsentsController {
  constructor(private readonly vrp: VrpConsentsService) {}

  @Post(':userId/vrp/consents')
  @Idempotent()
  @ApiOperation({
    // The id and tag it had when PaymentsController served it: the published document stays as it was.
    operationId: 'PaymentsController_createVrpConsent',
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
    @Param('userId') userId: string,
    @Body() body: CreateVrpConsentInput,
    @Tenant() caller: TenantCaller,
  ) {
    return envelope(await this.vrp.create(caller, userId, body));
  }
}
