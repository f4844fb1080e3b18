import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Put, Query } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { ApplicationRegistryService, SandboxAccess, SandboxError } from '../core/index.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { DeliveriesQueryDto, EmitEventDto, RetryPolicyDto } from './webhooks.dto.js';

/** The control API for webhooks: a fast retry schedule for tests, the delivery log, and events on demand. */
@SandboxAccess('admin')
@Controller('sandbox/admin/webhooks')
export class WebhooksAdminController {
  constructor(
    private readonly deliveries: WebhookDeliveryService,
    private readonly applications: ApplicationRegistryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('retry-policy')
  getPolicy() {
    return { data: this.deliveries.getPolicy() };
  }

  @Put('retry-policy')
  setPolicy(@Body() body: RetryPolicyDto) {
    return { data: this.deliveries.setPolicy(body) };
  }

  @Delete('retry-policy')
  resetPolicy() {
    return { data: this.deliveries.resetPolicy() };
  }

  @Get('deliveries')
  list(@Query() query: DeliveriesQueryDto) {
    const data = this.deliveries.list(query);
    return { meta: { count: data.length }, data };
  }

  /** Emits an event as the sandbox's own modules do, with knobs to test a receiver's duplicate and replay handling. */
  @Post('emit')
  @HttpCode(202)
  emit(@Body() body: EmitEventDto) {
    const applicationId = body.applicationId ?? this.config.upstream.applicationId;
    if (!this.applications.get(applicationId)) {
      throw SandboxError.notFound(`Application ${applicationId} was not found`);
    }
    const { eventId, deliveries } = this.deliveries.publish(
      { applicationId, type: body.type, data: body.data ?? {} },
      { duplicate: body.duplicate, timestampOffsetSeconds: body.timestampOffsetSeconds },
    );
    return {
      data: {
        eventId,
        applicationId,
        type: body.type,
        deliveries: deliveries.map((d) => ({ id: d.id, target: d.target })),
      },
    };
  }
}
