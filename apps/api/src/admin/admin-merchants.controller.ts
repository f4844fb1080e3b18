import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AuditAction } from '#libs/domain/audit';
import { MerchantService } from '#libs/domain/merchants';
import { ApiAnswer, ApiErrorResponse, Auth, AuthKind, envelope } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { answered, Audited } from '../common/audit/audited.decorator.js';
import { IdParam } from '../common/id-param.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { ListInput } from '../common/inputs/list.input.js';
import { RotateApiKeyInput } from '../common/inputs/rotate-api-key.input.js';
import {
  CreatedApiKeyOutput,
  CreatedMerchantOutput,
  MerchantOutput,
} from '../common/outputs/merchant.output.js';
import { keysetPage } from '../common/paging.js';
import { CreateMerchantInput } from './inputs/create-merchant.input.js';
import { UpdateMerchantInput } from './inputs/update-merchant.input.js';

const missing = { type: ApiErrorResponse, description: 'NOT_FOUND' };

@ApiTags('operator')
@Auth(AuthKind.Operator)
@Controller('admin/merchants')
export class AdminMerchantsController {
  constructor(private readonly merchants: MerchantService) {}

  @Post()
  @ApiOperation({
    summary: 'On-board a merchant',
    description:
      'Creates the merchant and its first API key (shown only here). With `subApplicationId` the upstream is asked whether it knows that sub-application. Not idempotent by key: operator calls have no merchant to scope keys by; a retry creates a second merchant unless it maps the same sub-application (409).',
  })
  @ApiAnswer(201, CreatedMerchantOutput)
  @ApiInvalid('VALIDATION_FAILED (also: a sub-application the upstream does not know)')
  @ApiConflictResponse({
    type: ApiErrorResponse,
    description: 'CONFLICT: another merchant maps this sub-application',
  })
  @Audited(AuditAction.MerchantCreate, {
    resource: 'merchant',
    id: answered('merchant', 'id'),
    merchant: answered('merchant', 'id'),
  })
  async create(@Body() body: CreateMerchantInput) {
    return envelope(await this.merchants.create(body));
  }

  @Get()
  @ApiOperation({ summary: 'List merchants', description: 'Oldest first, paged by an opaque cursor.' })
  @ApiAnswer(200, MerchantOutput, { list: true })
  @ApiInvalid()
  async list(@Query() query: ListInput) {
    const page = keysetPage(query, '/admin/merchants');
    const { merchants, nextAfterId } = await this.merchants.list(page.limit, page.after);
    return page.answer(merchants, nextAfterId);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One merchant with its API keys (never the keys themselves)' })
  @ApiAnswer(200, MerchantOutput)
  @ApiNotFoundResponse(missing)
  async get(@IdParam('id', 'Merchant') id: string) {
    return envelope(await this.merchants.get(id));
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change a merchant',
    description:
      'Name, browser origins (in effect at once on every api process) and, while the merchant has no consent or payment, its upstream sub-application (checked with the upstream). Omitted fields stay as they are.',
  })
  @ApiAnswer(200, MerchantOutput)
  @ApiInvalid('VALIDATION_FAILED (also: a sub-application the upstream does not know)')
  @ApiNotFoundResponse(missing)
  @ApiConflictResponse({
    type: ApiErrorResponse,
    description:
      'CONFLICT: another merchant maps this sub-application, or this one already has consents or payments under its own',
  })
  @Audited(AuditAction.MerchantUpdate, { resource: 'merchant', id: 'id', merchant: 'id', fields: true })
  async update(@IdParam('id', 'Merchant') id: string, @Body() body: UpdateMerchantInput) {
    return envelope(await this.merchants.update(id, body));
  }

  @Post(':id/disable')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Disable a merchant',
    description:
      'Keeps all of its data. Its API keys and user sessions answer 403 MERCHANT_DISABLED on every api process at once; its scheduled syncs, event deliveries and payment status checks wait (deliveries are not counted as failed attempts). Upstream webhooks about its consents are still applied, and the events they make wait for delivery. Disabling a disabled merchant is harmless and keeps the first `disabledAt`.',
  })
  @ApiAnswer(200, MerchantOutput)
  @ApiNotFoundResponse(missing)
  @Audited(AuditAction.MerchantDisable, { resource: 'merchant', id: 'id', merchant: 'id' })
  async disable(@IdParam('id', 'Merchant') id: string) {
    return envelope(await this.merchants.disable(id));
  }

  @Post(':id/enable')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Enable a merchant again',
    description:
      'Its keys and sessions work again (those revoked or expired meanwhile stay so); what waited resumes on its own schedule: due syncs at the next dispatch, deliveries at the next sweep, payment checks at the next poll. Enabling an enabled merchant is harmless.',
  })
  @ApiAnswer(200, MerchantOutput)
  @ApiNotFoundResponse(missing)
  @Audited(AuditAction.MerchantEnable, { resource: 'merchant', id: 'id', merchant: 'id' })
  async enable(@IdParam('id', 'Merchant') id: string) {
    return envelope(await this.merchants.enable(id));
  }

  @Post(':id/api-keys')
  @Audited(AuditAction.ApiKeyIssue, { resource: 'api-key', id: answered('id'), merchant: 'id' })
  @Idempotent({ merchantParam: 'id', secretFields: ['data.key'] })
  @ApiOperation({
    summary: 'Rotate: issue another API key',
    description:
      'The new key is shown only here; the old keys keep working until revoked. A secret shown once is stored nowhere: an idempotent replay (same Idempotency-Key and body) answers the same key record **without** `key`. A client that lost the first answer revokes that key id and rotates again with a new Idempotency-Key.',
  })
  @ApiAnswer(201, CreatedApiKeyOutput)
  @ApiInvalid()
  @ApiNotFoundResponse(missing)
  async rotate(@IdParam('id', 'Merchant') id: string, @Body() body: RotateApiKeyInput) {
    return envelope(await this.merchants.rotateKey(id, body.name));
  }

  @Delete(':id/api-keys/:keyId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key', description: 'Revoking an already revoked key is harmless.' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiNotFoundResponse(missing)
  @Audited(AuditAction.ApiKeyRevoke, { resource: 'api-key', id: 'keyId', merchant: 'id' })
  async revoke(@IdParam('id', 'Merchant') id: string, @IdParam('keyId') keyId: string): Promise<void> {
    await this.merchants.revokeKey(id, keyId);
  }
}
