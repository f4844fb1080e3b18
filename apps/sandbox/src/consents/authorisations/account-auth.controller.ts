import { Body, Controller, Headers, HttpCode, Patch, Post, Put, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Ctx, envelope, type SandboxContext, SandboxError } from '../../core/index.js';
import { ConsentFlowsService } from '../consent-flows.service.js';
import { AccountAuthorisationRequestDto } from './account-auth.dto.js';
import { AccountAuthService } from './account-auth.service.js';

/** Account authorisations through the redirect flow (upstream spec §4.1): the PSU decides on the hosted bank page. */
@Controller('account-auth-requests')
export class AccountAuthController {
  constructor(
    private readonly auth: AccountAuthService,
    private readonly flows: ConsentFlowsService,
  ) {}

  @Post()
  create(
    @Ctx() ctx: SandboxContext,
    @Body() body: AccountAuthorisationRequestDto,
    @Req() request: FastifyRequest,
  ) {
    const institution = this.auth.institution(body.institutionId, 'INITIATE_ACCOUNT_REQUEST');
    this.auth.requirePsuHeaders(institution, 'POST', request);
    const record = this.auth.create(ctx, body, institution, 'AWAITING_AUTHORIZATION');
    return envelope(request, this.flows.wire(record));
  }

  /** Re-authorise: for an authorised or expired consent; approval on the bank page issues a new token. */
  @Patch()
  @HttpCode(201)
  reauthorise(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Req() request: FastifyRequest,
  ) {
    const record = this.flows.consentForUpdate(ctx, token);
    const institution = this.auth.institution(record.institutionId, 'INITIATE_ACCOUNT_REQUEST');
    this.auth.requirePsuHeaders(institution, 'PATCH', request);
    return envelope(request, this.flows.wire(this.auth.reauthorise(record)));
  }

  /** Update a pre-authorised consent with the account request, then send the PSU to authorise it. */
  @Put()
  @HttpCode(200)
  updatePreAuthorisation(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Body() body: AccountAuthorisationRequestDto,
    @Req() request: FastifyRequest,
  ) {
    const record = this.flows.consentForUpdate(ctx, token);
    const institution = this.auth.institution(
      body.institutionId,
      'INITIATE_ACCOUNT_REQUEST',
      'INITIATE_PRE_AUTHORISATION',
    );
    if (institution.id !== record.institutionId) {
      throw SandboxError.invalidProperty(
        'institutionId',
        `The consent is for institution ${record.institutionId}`,
      );
    }
    this.auth.requirePsuHeaders(institution, 'PUT', request);
    if (body.userUuid && body.userUuid !== record.userUuid) {
      throw SandboxError.invalidProperty('userUuid', 'The consent belongs to another user');
    }
    if (body.applicationUserId && body.applicationUserId !== record.applicationUserId) {
      throw SandboxError.invalidProperty('applicationUserId', 'The consent belongs to another user');
    }
    return envelope(request, this.flows.wire(this.auth.update(record, body, institution)));
  }
}
