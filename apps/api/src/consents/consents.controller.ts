import { Body, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import {
  ConsentRenewalService,
  ConsentsService,
  EmbeddedConsentsService,
  RedirectConsentsService,
} from '#libs/domain/consents';
import { ApiAnswer, ApiPsuHeaders, ConditionalGet, envelope, Psu, type PsuInput, Tenant } from '#libs/http';
import { ApiFeatureUnsupported, ApiInvalid, ApiMissing, ApiUpstreamErrors } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { ListInput } from '../common/inputs/list.input.js';
import { ConsentOutput } from '../common/outputs/consent.output.js';
import { consentHistoryPage, userConsentsPage } from '../common/pages/consent-pages.js';
import { SessionReachableController } from '../common/session-reachable.decorator.js';
import { CreateConsentInput } from './inputs/create-consent.input.js';
import { CreateEmbeddedConsentInput } from './inputs/create-embedded-consent.input.js';
import { ReauthoriseConsentInput } from './inputs/reauthorise-consent.input.js';
import { SelectScaMethodInput } from './inputs/select-sca-method.input.js';
import { SubmitScaCodeInput } from './inputs/submit-sca-code.input.js';
import { UpdatePreAuthorisationInput } from './inputs/update-pre-authorisation.input.js';
import { ConsentStatusChangeOutput } from './outputs/consent-status-change.output.js';
import { CreatedConsentOutput } from './outputs/created-consent.output.js';
import { ConsentStatusOutput, EmbeddedConsentOutput } from './outputs/embedded-consent.output.js';
import { PreAuthorisationOutput } from './outputs/pre-authorisation.output.js';
import { ReauthorisationOutput } from './outputs/reauthorisation.output.js';

const USER_PRESENT =
  ' With the user present (`psu-ip-address`, or a user session), a consent this step authorises has its first syncs read the bank for them: not from its daily allowance of reads without the user.';
const WRONG_STEP = 'CONFLICT: the consent is not in the status this step needs (or not of this flow)';
const NOT_USABLE =
  'CONSENT_NOT_AUTHORISED (the consent has ended: revoked, expired, rejected or failed; the message and `details` name the way back, a new consent for the same institution through POST /v1/users/{userId}/consents, to which the accounts carry over; or no token is held yet), CONFLICT (an embedded-flow consent) or CONSENT_EXPIRED (the bank no longer honours it)';

/**
 * The consent routes, from connecting a bank to revoking it. Kept whole: one tag of the API reference,
 * each route its documentation and one service call.
 */
@SessionReachableController('consents', 'v1')
export class ConsentsController {
  constructor(
    private readonly consents: ConsentsService,
    private readonly redirect: RedirectConsentsService,
    private readonly embedded: EmbeddedConsentsService,
    private readonly renewal: ConsentRenewalService,
  ) {}

  @Post('users/:userId/consents')
  @Idempotent()
  @ApiOperation({
    summary: 'Start connecting a bank (redirect flow)',
    description:
      "Asks the upstream for an authorisation and answers the bank's `authorisationUrl`. Connecting a bank the user has connected before (after a revocation or an expiry, say) carries their accounts there over to the new consent: same account ids, transactions and sync history, none twice. An account is matched by its upstream account id, else by its sort code and account number, IBAN or full card number. The upstream calls back `GET /v1/callbacks/consents` with a one-time token (never the consent token) and our signed, single-use `state` (valid 1 h); the BFF then redirects the browser to `redirectUrl?consentId=…&status=…`. `redirectUrl` must be absolute http(s) and, when the merchant has frontendOrigins, on one of them.",
  })
  @ApiAnswer(201, CreatedConsentOutput)
  @ApiInvalid(
    'VALIDATION_FAILED (also: a scope the institution lacks, a PSU header it requires missing, or the upstream refused the institution or scopes)',
  )
  @ApiFeatureUnsupported()
  @ApiUpstreamErrors()
  @ApiPsuHeaders()
  async create(
    @IdParam('userId') userId: string,
    @Body() body: CreateConsentInput,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    return envelope(await this.redirect.create(caller, userId, body, psu));
  }

  // The credentials stay out of the idempotency fingerprint: not even a hash of a bank password is kept.
  @Post('users/:userId/consents/embedded')
  @Idempotent({ excludeFromFingerprint: ['credentials'] })
  @ApiOperation({
    summary: 'Start connecting a bank (embedded flow)',
    description:
      "Sends the PSU's bank credentials straight to the upstream (never stored or logged). Answers `AWAITING_SCA_METHOD` with `scaMethods` (then POST …/sca-method), `AWAITING_SCA_CODE` (then POST …/sca-code), or `AWAITING_AUTHORIZATION` (the BFF already polls the bank). Accepts Idempotency-Key; the credentials are left out of the stored request fingerprint, so a replay with the same key and other fields returns the first answer.",
  })
  @ApiAnswer(201, EmbeddedConsentOutput)
  @ApiInvalid(
    'VALIDATION_FAILED (also: wrong credentials, a PSU header the institution requires missing, or the upstream refused the institution)',
  )
  @ApiFeatureUnsupported()
  @ApiUpstreamErrors()
  @ApiPsuHeaders()
  async createEmbedded(
    @IdParam('userId') userId: string,
    @Body() body: CreateEmbeddedConsentInput,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    return envelope(await this.embedded.createEmbedded(caller, userId, body, psu));
  }

  @Post('consents/:consentId/sca-method')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Embedded flow: choose the SCA method',
    description: `Needs AWAITING_SCA_METHOD; answers the new status (normally AWAITING_SCA_CODE).${USER_PRESENT}`,
  })
  @ApiAnswer(200, ConsentStatusOutput)
  @ApiInvalid('VALIDATION_FAILED (also: an unknown method)')
  @ApiUpstreamErrors(WRONG_STEP)
  @ApiPsuHeaders()
  async selectScaMethod(
    @IdParam('consentId') consentId: string,
    @Body() body: SelectScaMethodInput,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    return envelope(await this.embedded.selectScaMethod(caller, consentId, body.scaMethodId, psu.ipAddress));
  }

  @Post('consents/:consentId/sca-code')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Embedded flow: submit the SCA code',
    description: `Needs AWAITING_SCA_CODE. The code goes straight to the upstream (never stored or logged). 202: the BFF then polls the bank (up to 2 minutes) until the consent is AUTHORIZED (token and accounts stored) or finally fails; read GET /v1/consents/{consentId}. A wrong code is 400; the bank fails the consent after three.${USER_PRESENT}`,
  })
  @ApiAnswer(202, ConsentStatusOutput)
  @ApiInvalid('VALIDATION_FAILED (also: a wrong code)')
  @ApiUpstreamErrors(WRONG_STEP)
  @ApiPsuHeaders()
  async submitScaCode(
    @IdParam('consentId') consentId: string,
    @Body() body: SubmitScaCodeInput,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    return envelope(await this.embedded.submitScaCode(caller, consentId, body.code, psu.ipAddress));
  }

  @Post('consents/:consentId/reauthorise')
  @Idempotent()
  @ApiOperation({
    summary: 'Re-authorise a consent (redirect flow)',
    description:
      "Renews a consent that is still AUTHORIZED (or asks again while AWAITING_RE_AUTHORIZATION), before it expires: asks the upstream for a re-authorisation with the stored consent token and answers the bank's `authorisationUrl`, also shown as `reauthorisationUrl` on GET /v1/consents/{consentId} while pending. The callback then stores the new token and expiry (the bank's new span, 90 days from the approval at most) and 302s to `redirectUrl?consentId=…&status=…`. A consent that has ended (REVOKED, EXPIRED, REJECTED, FAILED) is not renewed (409 CONSENT_NOT_AUTHORISED): connect the bank again with POST /v1/users/{userId}/consents; the user's accounts carry over to the new consent with their ids and transactions.",
  })
  @ApiAnswer(201, ReauthorisationOutput)
  @ApiInvalid(
    'VALIDATION_FAILED (also: a PSU header the institution requires missing, or the upstream refused the re-authorisation: its reason in the details, and the consent is as it was)',
  )
  @ApiUpstreamErrors(NOT_USABLE)
  @ApiPsuHeaders()
  async reauthorise(
    @IdParam('consentId') consentId: string,
    @Body() body: ReauthoriseConsentInput,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    return envelope(await this.renewal.reauthorise(caller, consentId, body.redirectUrl, psu));
  }

  @Put('consents/:consentId/pre-authorisation')
  @ApiOperation({
    summary: "Change a consent's terms (pre-authorisation update)",
    description:
      "Sends the new scopes (and dates) upstream with the stored consent token. The PSU approves them at the bank: the answer carries `authorisationUrl`, and the callback completes it as for a new consent, redirecting to `redirectUrl` (default: the consent's current one).",
  })
  @ApiAnswer(200, PreAuthorisationOutput)
  @ApiInvalid(
    'VALIDATION_FAILED (also: a PSU header the institution requires missing, or the upstream refused the scopes)',
  )
  @ApiUpstreamErrors(NOT_USABLE)
  @ApiPsuHeaders()
  async updatePreAuthorisation(
    @IdParam('consentId') consentId: string,
    @Body() body: UpdatePreAuthorisationInput,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    return envelope(await this.renewal.updatePreAuthorisation(caller, consentId, body, psu));
  }

  @Get('users/:userId/consents')
  @ConditionalGet()
  @ApiOperation({ summary: "A user's consents", description: 'Newest first, paged by an opaque cursor.' })
  @ApiAnswer(200, ConsentOutput, { list: true })
  @ApiInvalid()
  @ApiMissing()
  async list(@IdParam('userId') userId: string, @Query() query: ListInput, @Tenant() caller: TenantCaller) {
    return userConsentsPage(this.consents, caller, userId, query);
  }

  @Get('consents/:consentId')
  @ConditionalGet()
  @ApiOperation({ summary: 'One consent', description: 'Status, scope and dates; never the consent token.' })
  @ApiAnswer(200, ConsentOutput)
  @ApiMissing()
  async get(@IdParam('consentId') consentId: string, @Tenant() caller: TenantCaller) {
    return envelope(await this.consents.get(caller, consentId));
  }

  @Get('consents/:consentId/history')
  @ApiOperation({
    summary: "A consent's status history",
    description:
      'Every status the consent has had, oldest first, each with the status before it (null for the first) and when it changed; paged by an opaque cursor. Recorded by the database on every change, whatever made it (a callback, a poll, the expiry scan, reconciliation, a revocation, an upstream webhook); a write of the status it already had adds nothing. A consent from before the history was kept starts with one entry: its status then, dated by its last change.',
  })
  @ApiAnswer(200, ConsentStatusChangeOutput, { list: true })
  @ApiInvalid()
  @ApiMissing()
  async history(
    @IdParam('consentId') consentId: string,
    @Query() query: ListInput,
    @Tenant() caller: TenantCaller,
  ) {
    return consentHistoryPage(this.consents, caller, consentId, query);
  }

  @Delete('consents/:consentId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Revoke a consent',
    description:
      'Deletes the consent upstream (one the upstream no longer knows counts as deleted), marks it REVOKED and stops syncing its accounts. Revoking twice is harmless.',
  })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiInvalid(
    'VALIDATION_FAILED: the upstream refused the revocation (its reason in the details); the consent is as it was',
  )
  @ApiUpstreamErrors()
  async revoke(@IdParam('consentId') consentId: string, @Tenant() caller: TenantCaller) {
    await this.consents.revoke(caller, consentId);
  }
}
