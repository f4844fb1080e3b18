import { Get, Headers, Req, Res } from '@nestjs/common';
import { ApiGoneResponse, ApiHeader, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TenantCaller } from '#libs/context';
import { UserEventsService } from '#libs/domain/events';
import { ApiErrorResponse, Tenant } from '#libs/http';
import { ApiInvalid, ApiMissing } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { SessionReachableController } from '../common/session-reachable.decorator.js';
import { UserEventStreams } from './user-event-streams.js';

/** A user's live events for a frontend (Server-Sent Events). */
@SessionReachableController('events', 'v1/users')
export class UserEventsController {
  constructor(
    private readonly events: UserEventsService,
    private readonly streams: UserEventStreams,
  ) {}

  @Get(':userId/events')
  @ApiOperation({
    summary: 'Follow a user’s events live (Server-Sent Events)',
    description:
      'A `text/event-stream` of the user’s consent, sync, transaction and payment events, as they happen, in order. Each message has `id:` (its stream position), `event:` (the type) and `data:` (the event as JSON, the same body endpoints receive: the MerchantEventOutput schema). Send `Last-Event-ID` (browsers do so when they reconnect) to receive every event after that one, none missed and none twice; without it the stream starts from now. A Last-Event-ID older than the events kept, or past the stream’s last event (an id from another database, or from before a reset), answers 410 EVENTS_EXPIRED instead of a stream with a gap. A comment line every 15 seconds keeps proxies from closing it. Session tokens may follow only their own user. `EventSource` cannot send an Authorization header: use a fetch-based client (the API guide shows one).',
  })
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this event id' })
  @ApiOkResponse({
    description: 'The event stream',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiInvalid('VALIDATION_FAILED: a Last-Event-ID that is not an event id of a stream')
  @ApiMissing()
  @ApiGoneResponse({
    type: ApiErrorResponse,
    description:
      'EVENTS_EXPIRED: Last-Event-ID is older than the events kept (EVENT_RETENTION_DAYS, 30 by default), or past the stream’s last event (from another database, or from before a reset), so events may have been missed. Read the current state from the API, then open the stream without Last-Event-ID.',
  })
  async follow(
    @IdParam('userId') userId: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Tenant() caller: TenantCaller,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const position = await this.events.open(caller, userId, lastEventId === '' ? undefined : lastEventId);
    // From here the socket is ours: Fastify must not answer (or time out) the request.
    reply.hijack();
    const headers = Object.fromEntries(
      Object.entries(reply.getHeaders()).map(([name, value]) => [name, String(value)]),
    );
    request.raw.socket.setTimeout(0);
    this.streams.open(reply.raw, headers, { caller, userId, position, requestId: String(request.id) });
  }
}
