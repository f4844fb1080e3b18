import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { ConsentsService } from '#libs/domain/consents';
import { Idempotent } from '#libs/domain/idempotency';
import { ApiEnvelope, ApiErrorResponse, Auth, AuthKind, Principal, TracingId, envelope } from '#libs/http';
import { decodeCursor, encodeCursor, nextLink } from '../admin/paging.js';
import { ConsentDto, CreateConsentDto, CreatedConsentDto, ListQueryDto } from './consents.dto.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const invalid = { type: ApiErrorResponse, description: 'VALIDATION_FAILED' };
const missing = {
  type: ApiErrorResponse,
  description: "NOT_FOUND (also another merchant's or, for a session, another user's resource)",
};
const unavailable = { type: ApiErrorResponse, description: 'UPSTREAM_UNAVAILABLE, with error.upstream' };

/** A merchant key acts for any of its users; a session only for its own user (the service enforces it). */
const callerOf = (p: Principal) => ({ merchantId: p.merchantId!, userId: p.userId });

@ApiTags('consents')
@Auth(AuthKind.Merchant, AuthKind.UserSession)
@Controller('v1')
export class ConsentsController {
  constructor(private readonly consents: ConsentsService) {}

  @Post('users/:userId/consents')
  @Idempotent()
  @ApiOperation({
    summary: 'Start connecting a bank (redirect flow)',
    description:
      "Asks the upstream for an authorisation and answers the bank's `authorisationUrl`. The upstream calls back `GET /v1/callbacks/consents` with a one-time token (never the consent token) and our signed, single-use `state` (valid 1 h); the BFF then redirects the browser to `redirectUrl?consentId=…&status=…`. `redirectUrl` must be absolute http(s) and, when the merchant has frontendOrigins, on one of them.",
  })
  @ApiCreatedResponse({ type: ApiEnvelope(CreatedConsentDto) })
  @ApiBadRequestResponse({
    ...invalid,
    description: 'VALIDATION_FAILED (also: the upstream refused the institution or scopes)',
  })
  @ApiNotFoundResponse(missing)
  @ApiResponse({
    status: 424,
    type: ApiErrorResponse,
    description: "INSTITUTION_ERROR, with the institution's message",
  })
  @ApiServiceUnavailableResponse(unavailable)
  async create(
    @Param('userId') userId: string,
    @Body() body: CreateConsentDto,
    @Principal() principal: Principal,
    @TracingId() tracingId: string,
  ) {
    return envelope(tracingId, await this.consents.create(callerOf(principal), userId, body, tracingId));
  }

  @Get('users/:userId/consents')
  @ApiOperation({ summary: "A user's consents", description: 'Newest first, paged by an opaque cursor.' })
  @ApiOkResponse({ type: ApiEnvelope(ConsentDto, { list: true }) })
  @ApiBadRequestResponse(invalid)
  @ApiNotFoundResponse(missing)
  async list(
    @Param('userId') userId: string,
    @Query() query: ListQueryDto,
    @Principal() principal: Principal,
    @TracingId() tracingId: string,
  ) {
    const limit = query.limit ?? 50;
    const { consents, nextBeforeId } = await this.consents.listForUser(
      callerOf(principal),
      userId,
      limit,
      decodeCursor(query.cursor, UUID),
    );
    const nextCursor = nextBeforeId ? encodeCursor(nextBeforeId) : null;
    return envelope(
      tracingId,
      consents,
      { count: consents.length, nextCursor },
      nextLink(`/v1/users/${encodeURIComponent(userId)}/consents`, limit, nextCursor),
    );
  }

  @Get('consents/:consentId')
  @ApiOperation({ summary: 'One consent', description: 'Status, scope and dates; never the consent token.' })
  @ApiOkResponse({ type: ApiEnvelope(ConsentDto) })
  @ApiNotFoundResponse(missing)
  async get(
    @Param('consentId') consentId: string,
    @Principal() principal: Principal,
    @TracingId() tracingId: string,
  ) {
    return envelope(tracingId, await this.consents.get(callerOf(principal), consentId));
  }

  @Delete('consents/:consentId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Revoke a consent',
    description:
      'Deletes the consent upstream (one the upstream no longer knows counts as deleted), marks it REVOKED and stops syncing its accounts. Revoking twice is harmless.',
  })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiNotFoundResponse(missing)
  @ApiServiceUnavailableResponse(unavailable)
  async revoke(
    @Param('consentId') consentId: string,
    @Principal() principal: Principal,
    @TracingId() tracingId: string,
  ) {
    await this.consents.revoke(callerOf(principal), consentId, tracingId);
  }
}
