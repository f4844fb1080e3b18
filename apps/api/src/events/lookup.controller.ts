import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { TracingLookupService } from '#libs/domain/sync';
import { ApiAnswer, Auth, AuthKind, envelope, Tenant } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { LookupInput } from '../common/inputs/lookup.input.js';
import { LookupOutput } from './outputs/lookup.output.js';

/** Looking a tracing id, or any id, up across a merchant's customers, runs, payments, events and deliveries. */
@ApiTags('events')
@Auth(AuthKind.Merchant)
@Controller('v1/lookup')
export class LookupController {
  constructor(private readonly lookups: TracingLookupService) {}

  @Get()
  @ApiOperation({
    summary:
      'Look a tracing id, a customer’s reference, or any id, up across customers, sync runs, payments, events and deliveries',
    description:
      'What the id names among your customers, sync runs, payments, events and deliveries, and what those lead to, searched by the api (not only the latest items). Customers: the one whose `reference` it is, or whose id it is. Sync runs: those whose failure carries it as the upstream’s tracing id (`error.upstream.tracingId`), any of whose upstream calls the upstream answered with it as its tracing id (their call log, GET /v1/syncs/{syncId}/upstream-calls), those opened by the api request it is the `tracingId` of (POST /v1/accounts/{accountId}/sync), or whose id it is. Payments: those any of whose upstream calls the upstream answered with it as its tracing id (GET /v1/payments/{paymentId}/upstream-calls), or whose id it is. Events: the one whose id it is, those recorded by the api request it is the `tracingId` of (the `x-request-id` we answered that request with, also `tracingId` of its error envelope), and those of a run found (`data.syncId`). Deliveries: the one whose id it is, and those of an event found. Each list is newest first, at most 50; `more` says when one was cut. Nothing is found outside your merchant, nor after retention removed it, and an id that matches nothing answers empty lists (200), never 404. The request ids matched are only those of api requests, never the ids of our background jobs (which record sync events, for instance: find those through the run), and the answer never includes a request id: an event is shown as it was sent, so a lookup can only confirm an id you already hold.',
  })
  @ApiAnswer(200, LookupOutput)
  @ApiInvalid('VALIDATION_FAILED: the id is missing, empty, longer than 255 characters or not visible ASCII')
  async lookUp(@Query() query: LookupInput, @Tenant() caller: TenantCaller) {
    return envelope(await this.lookups.lookUp(caller, query.id));
  }
}
