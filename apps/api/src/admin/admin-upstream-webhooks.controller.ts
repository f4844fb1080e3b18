import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { AuditAction } from '#libs/domain/audit';
import {
  type MigrationReport,
  REGISTRATION_LOCK_WAIT_MS,
  UpstreamWebhookMigrationService,
  UpstreamWebhookRegistrationService,
  type UpstreamWebhookView,
  type WebhookApplication,
} from '#libs/domain/inbox';
import { MerchantService } from '#libs/domain/merchants';
import { ApiAnswer, ApiErrorResponse, Auth, AuthKind, envelope } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { answered, Audited } from '../common/audit/audited.decorator.js';
import { IdParam } from '../common/id-param.js';
import { listEnvelope } from '../common/paging.js';
import { RegisterUpstreamWebhookInput } from './inputs/register-upstream-webhook.input.js';
import {
  UpstreamWebhookCategoryOutput,
  UpstreamWebhookMigrationOutput,
  UpstreamWebhookOutput,
} from './outputs/upstream-webhook.output.js';

const unavailable = { type: ApiErrorResponse, description: 'UPSTREAM_UNAVAILABLE, with error.upstream' };
/** What a registration answers when another one for the application holds it up past the wait. */
const registrationBusy =
  `SERVICE_UNAVAILABLE: another registration for the application (another process's, say) was still under ` +
  `way after ${REGISTRATION_LOCK_WAIT_MS / 1000} s; retry after Retry-After`;

function view(registration: UpstreamWebhookView): UpstreamWebhookOutput {
  return {
    id: registration.id,
    applicationId: registration.applicationId,
    merchantId: registration.merchantId,
    merchantName: registration.merchant?.name ?? null,
    upstreamWebhookId: registration.upstreamWebhookId,
    categories: registration.categories,
    callbackUrl: registration.callbackUrl,
    status: registration.status,
    retiredAt: registration.retiredAt?.toISOString() ?? null,
    createdAt: registration.createdAt.toISOString(),
  };
}

function reportView(report: MigrationReport): UpstreamWebhookMigrationOutput {
  return {
    applicationId: report.applicationId,
    steps: report.steps,
    registration: view(report.registration),
  };
}

/** Operator routes registering our webhook receiver with the upstream (docs/events.md, "Events in"). */
@ApiTags('operator')
@Auth(AuthKind.Operator)
@Controller('admin/upstream')
export class AdminUpstreamWebhooksController {
  constructor(
    private readonly registrations: UpstreamWebhookRegistrationService,
    private readonly migration: UpstreamWebhookMigrationService,
    private readonly merchants: MerchantService,
  ) {}

  @Post('webhooks')
  @ApiOperation({
    summary: 'Register our webhook receiver with the upstream',
    description:
      "For the root application, or with `merchantId` for that merchant's sub-application. The upstream shows the webhook's signing secret once: it is stored sealed at once and never returned or logged. One webhook per callback URL, however often and by however many processes at once it is called: one the upstream still lists for the URL with these categories is answered again; any other for the URL is deleted upstream. A new registration retires the application's earlier ones; their secrets still verify for 24 hours. Registrations of one application run one at a time: one that waits " +
      `${REGISTRATION_LOCK_WAIT_MS / 1000} s for another still under way is answered 503 SERVICE_UNAVAILABLE, with Retry-After.`,
  })
  @ApiAnswer(201, UpstreamWebhookOutput)
  @ApiInvalid('VALIDATION_FAILED (also: categories or a callback URL the upstream refuses)')
  @ApiNotFoundResponse({ type: ApiErrorResponse, description: 'NOT_FOUND: no such merchant' })
  @ApiServiceUnavailableResponse({
    ...unavailable,
    description: `${unavailable.description}; or ${registrationBusy}`,
  })
  @Audited(AuditAction.UpstreamWebhookRegister, {
    resource: 'upstream-webhook',
    id: answered('id'),
    merchant: answered('merchantId'),
    fields: true,
  })
  async register(@Body() body: RegisterUpstreamWebhookInput) {
    const { registration } = await this.registrations.ensureRegistered(
      await this.applicationOf(body.merchantId),
      { categories: body.categories, callbackUrl: body.callbackUrl },
    );
    return envelope(view(registration));
  }

  @Get('webhooks')
  @ApiOperation({
    summary: 'Our registrations with the upstream',
    description: 'Current and retired ones, newest first; never a secret.',
  })
  @ApiAnswer(200, UpstreamWebhookOutput, { list: true })
  async list() {
    const registrations = await this.registrations.list();
    return listEnvelope(registrations.map(view));
  }

  @Post('webhooks/:id/secret')
  @ApiOperation({
    summary: "Reset a registration's secret upstream",
    description:
      'The upstream issues a new secret (stored sealed, never returned) and keeps signing with the old one too for the grace period (24 hours, the most the upstream allows); the old registration is retired and its secret still verifies for as long. `id` is our registration id, which changes: the answer is the new registration.',
  })
  @ApiAnswer(201, UpstreamWebhookOutput)
  @ApiNotFoundResponse({ type: ApiErrorResponse, description: 'NOT_FOUND: no such current registration' })
  @ApiConflictResponse({
    type: ApiErrorResponse,
    description: 'CONFLICT: the upstream no longer has this webhook (the registration is then retired)',
  })
  @ApiServiceUnavailableResponse(unavailable)
  @Audited(AuditAction.UpstreamWebhookRotateSecret, {
    resource: 'upstream-webhook',
    id: 'id',
    merchant: answered('merchantId'),
  })
  async resetSecret(@IdParam('id', 'Upstream webhook registration') id: string) {
    return envelope(view(await this.registrations.resetSecret(id)));
  }

  @Get('webhook-categories')
  @ApiOperation({
    summary: "The upstream's webhook event categories",
    description: 'Straight through to the upstream (GET /webhook/events/categories).',
  })
  @ApiAnswer(200, UpstreamWebhookCategoryOutput, { list: true })
  @ApiServiceUnavailableResponse(unavailable)
  async categories() {
    const categories = (await this.registrations.categories()).map((c) => ({
      name: c.name,
      ...(c.description !== undefined ? { description: c.description } : {}),
    }));
    return listEnvelope(categories);
  }

  @Post('webhooks/migrate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Move an application from the notification API to a webhook',
    description:
      "Spec 6.3 for the root application or, with `merchantId`, that merchant's sub-application: list the event subscriptions, delete each by eventTypeId (one already gone is `skipped`), list the categories, register the webhook (`skipped` when a current registration of ours with the same callback URL still exists upstream). Every step is reported. Safe to repeat, and to resume after a failure: each step is idempotent. **A failed step stops the run and the answer is that upstream failure's usual error** (503 UPSTREAM_UNAVAILABLE, or 400 VALIDATION_FAILED for a registration the upstream refuses), whose `details` end with every step so far as `steps[i]`: `<step> [target]: <outcome> (detail)`, the last one `failed`.",
  })
  @ApiAnswer(200, UpstreamWebhookMigrationOutput)
  @ApiInvalid('VALIDATION_FAILED (also: a registration the upstream refuses, with the steps so far)')
  @ApiNotFoundResponse({ type: ApiErrorResponse, description: 'NOT_FOUND: no such merchant' })
  @ApiServiceUnavailableResponse({
    type: ApiErrorResponse,
    description: `UPSTREAM_UNAVAILABLE: a step failed; or ${registrationBusy}. \`details\` report the steps so far`,
  })
  @Audited(AuditAction.UpstreamWebhookMigrate, {
    resource: 'upstream-webhook',
    merchant: ({ body }) => (body as { merchantId?: string } | undefined)?.merchantId,
    fields: true,
  })
  async migrate(@Body() body: RegisterUpstreamWebhookInput) {
    const report = await this.migration.migrate(await this.applicationOf(body.merchantId), {
      categories: body.categories,
      callbackUrl: body.callbackUrl,
    });
    return envelope(reportView(report));
  }

  /** The merchant is looked up here: the inbox library does not depend on the merchants one. */
  private async applicationOf(merchantId: string | undefined): Promise<WebhookApplication> {
    if (merchantId === undefined) return { merchantId: null, subApplicationId: null };
    const merchant = await this.merchants.get(merchantId);
    return { merchantId: merchant.id, subApplicationId: merchant.subApplicationId };
  }
}
