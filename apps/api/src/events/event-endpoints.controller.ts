import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { TUNING } from '#libs/config';
import { type TenantCaller, tenantOf } from '#libs/context';
import { AuditAction } from '#libs/domain/audit';
import {
  EventDeliveryService,
  EventEndpointsService,
  type EventEndpointView,
  RESPONSE_EXCERPT_BYTES,
} from '#libs/domain/events';
import { ApiAnswer, ApiErrorResponse, Auth, AuthKind, envelope, Tenant } from '#libs/http';
import { ApiInvalid, ApiMissing } from '../common/api-responses.js';
import { answered, Audited } from '../common/audit/audited.decorator.js';
import { IdParam } from '../common/id-param.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { ListInput } from '../common/inputs/list.input.js';
import { ApiUnionSchema } from '../common/openapi-unions.js';
import { EventEndpointOutput } from '../common/outputs/event-endpoint.output.js';
import { attemptsPage, deliveriesPage } from '../common/pages/delivery-pages.js';
import { listEnvelope } from '../common/paging.js';
import { CreateEventEndpointInput } from './inputs/create-event-endpoint.input.js';
import { RecoverDeliveriesInput } from './inputs/recover-deliveries.input.js';
import { UpdateEventEndpointInput } from './inputs/update-event-endpoint.input.js';
import { DeliveryRecoveryOutput } from './outputs/delivery-recovery.output.js';
import { EndpointTestOutput } from './outputs/endpoint-test.output.js';
import { EventDeliveryOutput } from './outputs/event-delivery.output.js';
import { EventDeliveryAttemptOutput } from './outputs/event-delivery-attempt.output.js';
import { EventEndpointWithSecretOutput } from './outputs/event-endpoint-with-secret.output.js';
import { MERCHANT_EVENT_OUTPUT } from './outputs/merchant-event.output.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;

function view(endpoint: EventEndpointView): EventEndpointOutput {
  return {
    id: endpoint.id,
    url: endpoint.url,
    types: endpoint.types,
    createdAt: endpoint.createdAt.toISOString(),
    previousSecretExpiresAt: iso(endpoint.previousSecretExpiresAt),
    failingSince: iso(endpoint.failingSince),
    disabledAt: iso(endpoint.disabledAt),
    disabledReason: endpoint.disabledReason,
    rateLimit: endpoint.rateLimit,
  };
}

/**
 * A merchant's webhook endpoints (docs/events.md). Merchant API keys only: a browser session has no
 * business with the merchant's backend endpoints or their secrets. Kept whole: every route under
 * /v1/event-endpoints, one resource of the API reference.
 */
@ApiTags('events')
@ApiUnionSchema(MERCHANT_EVENT_OUTPUT)
@Auth(AuthKind.Merchant)
@Controller('v1/event-endpoints')
export class EventEndpointsController {
  constructor(
    private readonly endpoints: EventEndpointsService,
    private readonly delivery: EventDeliveryService,
  ) {}

  @Post()
  @Audited(AuditAction.EventEndpointCreate, {
    resource: 'event-endpoint',
    id: answered('endpoint', 'id'),
    fields: true,
  })
  @Idempotent({ secretFields: ['data.secret'] })
  @ApiOperation({
    summary: 'Subscribe an endpoint to events',
    description:
      'Every event of the chosen types is POSTed to `url` as JSON (the MerchantEventOutput schema: one schema per type, told apart by `type`), signed with Standard Webhooks headers (`webhook-id` = the event id, `webhook-timestamp`, `webhook-signature`) using the `secret` answered here once (a replay with the same Idempotency-Key answers without it). Failed deliveries (non-2xx, timeout, redirect) are retried with exponential backoff and jitter for EVENT_DELIVERY_RETRY_HOURS (24 h by default); an endpoint with no successful delivery for 72 h is disabled. `rateLimit` caps the deliveries a second; those past it wait their turn. The exact schedule this deployment applies: GET /v1/event-delivery-policy.',
  })
  @ApiAnswer(201, EventEndpointWithSecretOutput)
  @ApiInvalid()
  async create(@Body() body: CreateEventEndpointInput, @Tenant() caller: TenantCaller) {
    const { endpoint, secret } = await this.endpoints.create(caller, {
      url: body.url,
      types: body.types ?? [],
      rateLimit: body.rateLimit ?? null,
    });
    return envelope({ endpoint: view(endpoint), secret });
  }

  @Get()
  @ApiOperation({ summary: 'The merchant’s event endpoints, newest first' })
  @ApiAnswer(200, EventEndpointOutput, { list: true })
  async list(@Tenant() caller: TenantCaller) {
    const endpoints = (await this.endpoints.list(caller)).map(view);
    return listEnvelope(endpoints);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One event endpoint (with why it is disabled, if it is)' })
  @ApiAnswer(200, EventEndpointOutput)
  @ApiMissing()
  async get(@IdParam('id', 'Event endpoint') id: string, @Tenant() caller: TenantCaller) {
    return envelope(view(await this.endpoints.get(caller, id)));
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change an endpoint’s address, event types or rate limit',
    description:
      'Omitted fields stay as they are. The secret is unchanged (rotate it with POST …/secret) and so is whether it is disabled (enable it with POST …/enable).',
  })
  @ApiAnswer(200, EventEndpointOutput)
  @ApiInvalid()
  @ApiMissing()
  @Audited(AuditAction.EventEndpointUpdate, { resource: 'event-endpoint', id: 'id', fields: true })
  async update(
    @IdParam('id', 'Event endpoint') id: string,
    @Body() body: UpdateEventEndpointInput,
    @Tenant() caller: TenantCaller,
  ) {
    const { url, types, rateLimit } = body;
    return envelope(view(await this.endpoints.update(caller, id, { url, types, rateLimit })));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Unsubscribe: deliveries stop, and the endpoint’s delivery log goes with it' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiMissing()
  @Audited(AuditAction.EventEndpointDelete, { resource: 'event-endpoint', id: 'id' })
  async delete(@IdParam('id', 'Event endpoint') id: string, @Tenant() caller: TenantCaller): Promise<void> {
    await this.endpoints.delete(caller, id);
  }

  @Post(':id/secret')
  @ApiOperation({
    summary: 'Rotate the signing secret',
    description:
      'Answers a new secret, shown once. For 24 h deliveries carry two signatures (new and previous secret), so the receiver can switch at leisure; after that, only the new one.',
  })
  @ApiAnswer(201, EventEndpointWithSecretOutput)
  @ApiMissing()
  @Audited(AuditAction.EventEndpointRotateSecret, { resource: 'event-endpoint', id: 'id' })
  async rotate(@IdParam('id', 'Event endpoint') id: string, @Tenant() caller: TenantCaller) {
    const { endpoint, secret } = await this.endpoints.rotateSecret(caller, id);
    return envelope({ endpoint: view(endpoint), secret });
  }

  @Post(':id/enable')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Enable a disabled endpoint again',
    description:
      'Deliveries resume for events from now on; those that failed while it was disabled can be sent again, all at once with POST …/recover (since when it stopped) or one by one with the retry route.',
  })
  @ApiAnswer(200, EventEndpointOutput)
  @ApiMissing()
  @Audited(AuditAction.EventEndpointEnable, { resource: 'event-endpoint', id: 'id' })
  async enable(@IdParam('id', 'Event endpoint') id: string, @Tenant() caller: TenantCaller) {
    return envelope(view(await this.endpoints.enable(caller, id)));
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send the endpoint a test event',
    description:
      'Sends an `endpoint.test` event to this endpoint now, signed with its secrets as every delivery is, once (no retry), and answers what the endpoint answered. Whatever types the endpoint takes, and also while it is disabled (to check a fix before enabling it). Not recorded: it is in no delivery log, events list or stream, and leaves the endpoint’s health as it was. Answered 200 whether or not the endpoint accepted it (`delivered`).',
  })
  @ApiAnswer(200, EndpointTestOutput)
  @ApiMissing()
  async test(@IdParam('id', 'Event endpoint') id: string, @Tenant() caller: TenantCaller) {
    const sent = await this.delivery.sendTest(tenantOf(caller), id);
    return envelope(sent);
  }

  @Get(':id/deliveries')
  @ApiOperation({
    summary: 'The endpoint’s deliveries, newest first',
    description:
      'Attempts, the last answer’s status or error, and when the next attempt is due. Keyset-paged.',
  })
  @ApiAnswer(200, EventDeliveryOutput, { list: true })
  @ApiInvalid()
  @ApiMissing()
  async deliveries(
    @IdParam('id', 'Event endpoint') id: string,
    @Query() query: ListInput,
    @Tenant() caller: TenantCaller,
  ) {
    return deliveriesPage(this.endpoints, caller, id, query);
  }

  @Get(':id/deliveries/:deliveryId/attempts')
  @ApiOperation({
    summary: 'A delivery’s attempts, newest first',
    description: `Each attempt as it went: when, how long, the request sent (URL, headers, the body exactly as signed) and the answer (status, \`content-type\` and the first ${RESPONSE_EXCERPT_BYTES / 1024} KiB of its body) or the error. Kept as long as the delivery: until the event leaves retention (EVENT_RETENTION_DAYS) or the endpoint is deleted. Keyset-paged.`,
  })
  @ApiAnswer(200, EventDeliveryAttemptOutput, { list: true })
  @ApiInvalid('VALIDATION_FAILED: a bad limit or cursor')
  @ApiMissing()
  async attempts(
    @IdParam('id', 'Event endpoint') id: string,
    @IdParam('deliveryId') deliveryId: string,
    @Query() query: ListInput,
    @Tenant() caller: TenantCaller,
  ) {
    return attemptsPage(this.endpoints, caller, { endpointId: id, deliveryId }, query);
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a delivery again now',
    description:
      'Whatever its state: a failed one, or a delivered one the receiver lost. Same event id and body.',
  })
  @ApiAnswer(202, EventDeliveryOutput)
  @ApiMissing()
  @Audited(AuditAction.EventDeliveryRetry, { resource: 'event-delivery', id: 'deliveryId' })
  async retry(
    @IdParam('id', 'Event endpoint') id: string,
    @IdParam('deliveryId') deliveryId: string,
    @Tenant() caller: TenantCaller,
  ) {
    return envelope(await this.endpoints.retry(caller, id, deliveryId));
  }

  @Post(':id/recover')
  @HttpCode(202)
  @Audited(AuditAction.EventEndpointRecover, { resource: 'event-endpoint', id: 'id', fields: true })
  @Idempotent()
  @ApiOperation({
    summary: 'Send again every delivery that failed for good since a time',
    description: `Every delivery to this endpoint created at or after \`since\` whose status is FAILED (its retries ran out, or it failed while the endpoint was disabled) is made PENDING and sent now, same event id and body, its attempts kept and counted on. At most ${TUNING.eventRecoveryBatch} a call, oldest first: while \`more\` is true, call again. A delivery already pending or delivered is left as it is, so a repeated call never sends one twice. Refused while the endpoint is disabled (409: enable it first, POST …/enable), and for a \`since\` in the future or older than retention (400).`,
  })
  @ApiAnswer(202, DeliveryRecoveryOutput)
  @ApiInvalid('VALIDATION_FAILED: since missing, malformed, in the future or older than retention')
  @ApiMissing()
  @ApiConflictResponse({
    type: ApiErrorResponse,
    description: 'CONFLICT: the endpoint is disabled (enable it with POST …/enable, then recover);',
  })
  async recover(
    @IdParam('id', 'Event endpoint') id: string,
    @Body() body: RecoverDeliveriesInput,
    @Tenant() caller: TenantCaller,
  ) {
    return envelope(await this.endpoints.recover(caller, id, new Date(body.since)));
  }
}
