import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { EventsListService } from '#libs/domain/events';
import { ApiLinks, ApiListMeta, ApiMeta, Auth, AuthKind, envelope, Tenant } from '#libs/http';
import { isBigintKey } from '#libs/ids';
import { ApiInvalid, ApiMissing } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { keysetPage } from '../common/paging.js';
import { ListEventsInput } from './inputs/list-events.input.js';

const EVENT = { $ref: '#/components/schemas/MerchantEventOutput' };

/** A merchant's events as a list: what its endpoints and its users' streams were sent (docs/api-guide.md). */
@ApiTags('events')
@Auth(AuthKind.Merchant)
@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsListService) {}

  @Get()
  @ApiOperation({
    summary: 'List events, newest first',
    description:
      'Every event sent to your endpoints and your users’ streams (whatever the endpoints’ types), newest first in the order they were committed, keyset-paged by an opaque cursor, while kept (EVENT_RETENTION_DAYS). Filters: `type`, `userId`, `from` (inclusive) and `before` (exclusive) on `createdAt`. To catch up after your endpoint was down, page from now back to when it stopped and handle each event you have not seen (deduplicate on `id`, as for deliveries).',
  })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['data', 'meta'],
      properties: {
        data: { type: 'array', items: EVENT },
        meta: { $ref: getSchemaPath(ApiListMeta) },
        links: { $ref: getSchemaPath(ApiLinks) },
      },
    },
  })
  @ApiInvalid('VALIDATION_FAILED: a bad filter, limit or cursor')
  async list(@Query() query: ListEventsInput, @Tenant() caller: TenantCaller) {
    const page = keysetPage(query, '/v1/events', {
      key: isBigintKey,
      filters: { type: query.type, userId: query.userId, from: query.from, before: query.before },
    });
    const { events, nextBeforeStreamSeq } = await this.events.list(caller, {
      limit: page.limit,
      beforeStreamSeq: page.after,
      type: query.type,
      userId: query.userId,
      from: query.from,
      before: query.before,
    });
    return page.answer(events, nextBeforeStreamSeq);
  }

  @Get(':eventId')
  @ApiOperation({ summary: 'One event, as it was sent' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['data', 'meta'],
      properties: { data: EVENT, meta: { $ref: getSchemaPath(ApiMeta) } },
    },
  })
  @ApiMissing()
  async get(@IdParam('eventId') eventId: string, @Tenant() caller: TenantCaller) {
    return envelope(await this.events.get(caller, eventId));
  }
}
