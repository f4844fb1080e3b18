import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Ctx, envelope, type SandboxContext, SandboxError } from '../core/index.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { CreateEventSubscriptionDto } from './webhooks.dto.js';
import { type EventSubscriptionRecord, WebhooksStore } from './webhooks.store.js';

const pad = (n: number) => String(n).padStart(2, '0');

/** `created` as the upstream writes it: `dd-MM-yyyy HH:mm:ss` (UTC), e.g. `28-07-2021 15:47:03`. */
export function formatCreated(date: Date): string {
  return (
    `${pad(date.getUTCDate())}-${pad(date.getUTCMonth() + 1)}-${date.getUTCFullYear()} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  );
}

function view(subscription: EventSubscriptionRecord) {
  return {
    eventTypeId: subscription.eventTypeId,
    applicationId: subscription.applicationId,
    created: formatCreated(subscription.createdAt),
    notification: { ...subscription.notification },
  };
}

/** The deprecated notification API (upstream spec §4.7, 6.1): one subscription per application and event type. */
@Controller('notifications/event-subscriptions')
export class NotificationsController {
  constructor(
    private readonly store: WebhooksStore,
    private readonly deliveries: WebhookDeliveryService,
  ) {}

  @Get()
  list(@Ctx() ctx: SandboxContext, @Req() request: FastifyRequest) {
    return envelope(request, this.store.listSubscriptions(ctx.application.id).map(view));
  }

  @Post()
  @HttpCode(201)
  create(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Body() body: CreateEventSubscriptionDto,
  ) {
    const created = this.store.createSubscription({
      applicationId: ctx.application.id,
      eventTypeId: body.eventTypeId,
      notification: { type: 'WEBHOOK', url: body.notification.url },
    });
    if (!created) {
      const message = `Event subscription already exist for the application: ${body.eventTypeId}`;
      throw new SandboxError(409, message, [
        { type: 'CONFLICT', code: 'CONFLICT', parameter: 'eventTypeId', message },
      ]);
    }
    return envelope(request, view(created));
  }

  @Get(':eventTypeId')
  get(@Ctx() ctx: SandboxContext, @Req() request: FastifyRequest, @Param('eventTypeId') eventTypeId: string) {
    const subscription = this.store.getSubscription(ctx.application.id, eventTypeId);
    if (!subscription) throw SandboxError.notFound(`Event subscription ${eventTypeId} was not found`);
    return envelope(request, view(subscription));
  }

  @Delete(':eventTypeId')
  remove(
    @Ctx() ctx: SandboxContext,
    @Req() request: FastifyRequest,
    @Param('eventTypeId') eventTypeId: string,
  ) {
    const subscription = this.store.deleteSubscription(ctx.application.id, eventTypeId);
    if (!subscription) throw SandboxError.notFound(`Event subscription ${eventTypeId} was not found`);
    this.deliveries.cancelPending(subscription.applicationId, { kind: 'notification', eventTypeId });
    const { notification: _notification, ...rest } = view(subscription);
    return envelope(request, { ...rest, deleteStatus: 'SUCCESS' });
  }
}
