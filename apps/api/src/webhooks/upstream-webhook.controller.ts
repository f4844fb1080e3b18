import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiBody,
  ApiHeader,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { WebhookReceiverService } from '#libs/domain/inbox';
import {
  ApiAnswer,
  ApiErrorResponse,
  Auth,
  AuthKind,
  envelope,
  RAW_BODY_ROUTE,
  WithRouteConfig,
} from '#libs/http';
import { PUBLIC_ROUTES } from '#libs/routes';
import { ApiInvalid } from '../common/api-responses.js';
import { IgnoresUndeclaredQuery } from '../common/undeclared-query.hook.js';
import { WebhookReceivedOutput } from './outputs/webhook-received.output.js';

/** The upstream's webhook receiver (docs/events.md; docs/architecture.md). */
@ApiTags('events')
@Auth(AuthKind.UpstreamWebhook)
@Controller(PUBLIC_ROUTES.upstreamWebhook)
export class UpstreamWebhookController {
  constructor(private readonly receiver: WebhookReceiverService) {}

  @Post()
  @HttpCode(200)
  @WithRouteConfig(RAW_BODY_ROUTE)
  // The upstream calls the URL it was registered with and may add parameters of its own: an event it
  // signed is taken whatever its URL carries (the signature covers the body, not the URL).
  @IgnoresUndeclaredQuery()
  @ApiOperation({
    summary: 'Receive an upstream webhook',
    description:
      "For the upstream only. The body names the application the event is for (`applicationId`: the root application or a sub-application), and only that application's registered secrets (including a replaced one during its grace period) may verify it. The signature (Standard Webhooks) is checked over the exact bytes received exactly as the official `standardwebhooks` package checks it, so no other encoding of a signature passes; the timestamp must be within 5 minutes of our clock. A verified event is stored in the inbox, once per `webhook-id`, and only then answered 200; a redelivery answers 200 with `duplicate: true` and changes nothing. Its effects (consent revoked or expired, payment completed or failed, merchant events) follow in the worker, on consents and payments of that application only.",
  })
  @ApiHeader({ name: 'webhook-id', required: true, description: 'The event id (the dedupe key)' })
  @ApiHeader({ name: 'webhook-timestamp', required: true, description: 'Seconds since the epoch' })
  @ApiHeader({ name: 'webhook-signature', required: true, description: 'Space-separated `v1,<base64>`' })
  @ApiBody({ schema: { type: 'object', additionalProperties: true } })
  @ApiAnswer(200, WebhookReceivedOutput)
  @ApiInvalid(
    'VALIDATION_FAILED: a body that is not a JSON object naming its application (`applicationId`), or a verified one that cannot be stored',
  )
  @ApiUnauthorizedResponse({
    type: ApiErrorResponse,
    description:
      'UNAUTHENTICATED: unsigned, forged, tampered, stale or future-dated, or not signed with a secret of the application it names',
  })
  @ApiPayloadTooLargeResponse({ type: ApiErrorResponse, description: 'PAYLOAD_TOO_LARGE' })
  async receive(@Req() request: FastifyRequest) {
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    return envelope(await this.receiver.receive(body, request.headers));
  }
}
