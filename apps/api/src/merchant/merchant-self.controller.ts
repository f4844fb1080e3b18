import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { MerchantCaller, TenantCaller } from '#libs/context';
import { AUDIT_POSITION, AuditAction, AuditTrailService } from '#libs/domain/audit';
import { MerchantService } from '#libs/domain/merchants';
import { DomainError, ErrorCode } from '#libs/errors';
import { ApiAnswer, ApiErrorResponse, Auth, AuthKind, envelope, Tenant } from '#libs/http';
import { ApiInvalid, ApiMissing } from '../common/api-responses.js';
import { answered, Audited } from '../common/audit/audited.decorator.js';
import { IdParam } from '../common/id-param.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { AuditListInput } from '../common/inputs/audit-list.input.js';
import { RotateApiKeyInput } from '../common/inputs/rotate-api-key.input.js';
import { AuditEntryOutput } from '../common/outputs/audit-entry.output.js';
import { ApiKeyOutput, CreatedApiKeyOutput, MerchantOutput } from '../common/outputs/merchant.output.js';
import { keysetPage, listEnvelope } from '../common/paging.js';
import { UpdateOwnMerchantInput } from './inputs/update-own-merchant.input.js';

/** Merchant-only routes: the access hook lets no other kind through; a session here would be a wiring bug. */
function merchantOf(caller: TenantCaller): MerchantCaller {
  if (caller.kind !== 'merchant') throw new DomainError(ErrorCode.FORBIDDEN, 'A merchant API key only.');
  return caller;
}

/**
 * A merchant managing its own integration with one of its API keys (docs/api-guide.md, "Your
 * integration"): its browser origins, its keys, and the audit log of what was done to them. Every change
 * is audited. Browser sessions have no business here.
 */
@ApiTags('merchant')
@Auth(AuthKind.Merchant)
@Controller('v1/merchant')
export class MerchantSelfController {
  constructor(
    private readonly merchants: MerchantService,
    private readonly audit: AuditTrailService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'This merchant',
    description:
      'Its name, browser origins and API keys (never the keys themselves), as the operator sees it.',
  })
  @ApiAnswer(200, MerchantOutput)
  async get(@Tenant() caller: TenantCaller) {
    return envelope(await this.merchants.own(merchantOf(caller)));
  }

  @Patch()
  @ApiOperation({
    summary: "Change this merchant's browser origins",
    description:
      "The origins `<bff-connect>` and other browser code may call the api from with a session token. In effect at once on every api process. Name and sub-application are the operator's to change.",
  })
  @ApiAnswer(200, MerchantOutput)
  @ApiInvalid()
  @Audited(AuditAction.MerchantUpdate, { resource: 'merchant', id: answered('id'), fields: true })
  async update(@Body() body: UpdateOwnMerchantInput, @Tenant() caller: TenantCaller) {
    return envelope(await this.merchants.updateOwn(merchantOf(caller), body));
  }

  @Get('api-keys')
  @ApiOperation({
    summary: "This merchant's API keys",
    description: 'Every key, revoked ones too; never a key itself.',
  })
  @ApiAnswer(200, ApiKeyOutput, { list: true })
  async keys(@Tenant() caller: TenantCaller) {
    return listEnvelope((await this.merchants.own(merchantOf(caller))).apiKeys);
  }

  @Post('api-keys')
  @Audited(AuditAction.ApiKeyIssue, { resource: 'api-key', id: answered('id') })
  @Idempotent({ secretFields: ['data.key'] })
  @ApiOperation({
    summary: 'Issue another API key',
    description:
      'The new key is shown only here; the others keep working until revoked, so a key is rotated by issuing the next one, deploying it, then revoking the old one. An idempotent replay answers the key record **without** `key`.',
  })
  @ApiAnswer(201, CreatedApiKeyOutput)
  @ApiInvalid()
  async issueKey(@Body() body: RotateApiKeyInput, @Tenant() caller: TenantCaller) {
    return envelope(await this.merchants.rotateOwnKey(merchantOf(caller), body.name));
  }

  @Delete('api-keys/:keyId')
  @HttpCode(204)
  @ApiOperation({
    summary: "Revoke one of this merchant's API keys",
    description:
      'Refused on every api process at once, open event streams included. The calling key may revoke itself, but not the last working key (409): issue another first. Revoking a revoked key is harmless.',
  })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiMissing()
  @ApiConflictResponse({
    type: ApiErrorResponse,
    description: "CONFLICT: it is the merchant's last working key",
  })
  @Audited(AuditAction.ApiKeyRevoke, { resource: 'api-key', id: 'keyId' })
  async revokeKey(@IdParam('keyId') keyId: string, @Tenant() caller: TenantCaller): Promise<void> {
    await this.merchants.revokeOwnKey(merchantOf(caller), keyId);
  }

  @Get('audit')
  @ApiOperation({
    summary: "This merchant's audit log",
    description:
      "Every administrative action on this merchant's integration, by its keys or by the operator, newest first: who, what, on which resource, when, from which address, and the request's tracing id. Kept for AUDIT_RETENTION_DAYS.",
  })
  @ApiAnswer(200, AuditEntryOutput, { list: true })
  @ApiInvalid('VALIDATION_FAILED (a bad cursor or action too)')
  async auditLog(@Query() query: AuditListInput, @Tenant() caller: TenantCaller) {
    const page = keysetPage(query, '/v1/merchant/audit', {
      key: AUDIT_POSITION,
      filters: { action: query.action },
    });
    const { entries, nextBefore } = await this.audit.pageFor(merchantOf(caller), {
      action: query.action,
      before: page.after,
      limit: page.limit,
    });
    return page.answer(entries, nextBefore);
  }
}
