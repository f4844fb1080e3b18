import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, UseFilters } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { isUuid } from '#libs/ids';
import { Ctx, type SandboxContext, SandboxError, webhookTracingIdOf } from '../core/index.js';
import { WEBHOOK_CATEGORIES, WEBHOOK_CATEGORY_NAMES } from './webhook-categories.catalog.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import {
  WEBHOOK_ISSUE_CODES,
  webhookBadRequest,
  WebhookErrorFilter,
  webhookNotFound,
} from './webhook-error.filter.js';
import { RegisterWebhookDto, ResetWebhookSecretDto } from './webhooks.dto.js';
import { MAX_WEBHOOKS_PER_APPLICATION, type WebhookRecord, WebhooksStore } from './webhooks.store.js';

const MAX_METADATA_BYTES = 10 * 1024;

/** The webhook API answers with `metadata` where the rest of the API says `meta` (upstream spec §2.1). */
function answer<T>(request: FastifyRequest, data: T) {
  return { metadata: { tracingId: webhookTracingIdOf(request) }, data };
}

/** The wire form of a webhook: never its secret. */
function view(webhook: WebhookRecord) {
  return {
    id: webhook.id,
    applicationId: webhook.applicationId,
    categories: [...webhook.categories],
    callbackUrl: webhook.callbackUrl,
    ...(webhook.metadata ? { metadata: webhook.metadata } : {}),
    status: webhook.status,
  };
}

/** Webhooks (upstream spec §4.7, 5.6, 6.2): registration per application, the secret shown once. */
@UseFilters(WebhookErrorFilter)
@Controller('webhook')
export class WebhooksController {
  constructor(
    private readonly store: WebhooksStore,
    private readonly deliveries: WebhookDeliveryService,
  ) {}

  @Get('events/categories')
  categories(@Req() request: FastifyRequest) {
    return answer(request, { categories: WEBHOOK_CATEGORIES.map((c) => ({ ...c })) });
  }

  @Post('events')
  @HttpCode(201)
  register(@Ctx() ctx: SandboxContext, @Req() request: FastifyRequest, @Body() body: RegisterWebhookDto) {
    if (body.applicationId !== ctx.application.id) {
      throw webhookBadRequest(
        'applicationId must be the application the call is made for (the sub-application header when one is sent)',
        'applicationId',
      );
    }
    body.categories.forEach((category, index) => {
      if (!WEBHOOK_CATEGORY_NAMES.has(category)) {
        throw webhookBadRequest(
          `Unknown event category ${category}; see GET /webhook/events/categories`,
          `categories[${index}]`,
        );
      }
    });
    const metadata = this.metadata(body.metadata);
    if (this.store.listWebhooks(ctx.application.id).length >= MAX_WEBHOOKS_PER_APPLICATION) {
      const message = 'Maximum number of resources that can be created has been reached';
      throw new SandboxError(406, message, [
        { type: 'RESOURCE', code: WEBHOOK_ISSUE_CODES.tooManyWebhooks, message },
      ]);
    }
    const webhook = this.store.createWebhook({
      applicationId: ctx.application.id,
      categories: [...new Set(body.categories)],
      callbackUrl: {
        main: { url: body.callbackUrl.main.url },
        ...(body.callbackUrl.backup ? { backup: { url: body.callbackUrl.backup.url } } : {}),
      },
      ...(metadata ? { metadata } : {}),
    });
    return answer(request, { ...view(webhook), webhookSecret: webhook.secret });
  }

  @Get('events')
  list(@Ctx() ctx: SandboxContext, @Req() request: FastifyRequest) {
    return answer(request, { active: this.store.listWebhooks(ctx.application.id).map(view) });
  }

  @Delete('events/:webhook_id')
  remove(@Ctx() ctx: SandboxContext, @Req() request: FastifyRequest, @Param('webhook_id') id: string) {
    const webhook = this.store.deleteWebhook(ctx.application.id, this.webhookId(id));
    if (!webhook) throw webhookNotFound(`Webhook ${id} was not found`);
    this.deliveries.cancelPending(webhook.applicationId, { kind: 'webhook', webhookId: webhook.id });
    const { status: _status, ...registered } = view(webhook);
    return answer(request, registered);
  }

  /**
   * A new secret, shown once. `delay` (seconds, required by the upstream) keeps the old secret valid:
   * until it ends, deliveries carry two signatures, one per secret, so receivers can switch at leisure.
   */
  @Post('secrets/:webhook_id')
  @HttpCode(201)
  resetSecret(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Param('webhook_id') id: string,
    @Body() body: ResetWebhookSecretDto,
  ) {
    const webhook = this.store.getWebhook(ctx.application.id, this.webhookId(id));
    if (!webhook) throw webhookNotFound(`Webhook ${id} was not found`);
    this.store.resetSecret(webhook, body.delay);
    return answer(request, { ...view(webhook), webhookSecret: webhook.secret });
  }

  private webhookId(id: string): string {
    if (!isUuid(id)) throw webhookBadRequest('webhook_id must be a UUID', 'webhook_id');
    return id.toLowerCase();
  }

  /** Free-form string pairs under 10 kB, echoed on every delivery. */
  private metadata(metadata: Record<string, unknown> | undefined): Record<string, string> | undefined {
    if (metadata === undefined) return undefined;
    for (const [key, value] of Object.entries(metadata)) {
      if (typeof value !== 'string')
        throw webhookBadRequest(`metadata.${key} must be a string`, `metadata.${key}`);
    }
    if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES) {
      throw webhookBadRequest('metadata must be under 10 kB', 'metadata');
    }
    return { ...(metadata as Record<string, string>) };
  }
}
