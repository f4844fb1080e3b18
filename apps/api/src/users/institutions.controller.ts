import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { InstitutionsService } from '#libs/domain/institutions';
import { ApiEnvelope, ApiErrorResponse, Auth, AuthKind, TracingId, envelope } from '#libs/http';
import { decodeCursor, encodeCursor, nextLink } from '../admin/paging.js';
import { InstitutionDto, InstitutionsQueryDto } from './institutions.dto.js';

const INSTITUTION_ID = /^[\x20-\x7e]{1,255}$/;
const upstreamDown = {
  type: ApiErrorResponse,
  description: 'UPSTREAM_UNAVAILABLE (only while the cache is empty and the upstream cannot fill it)',
};

@ApiTags('institutions')
@Auth(AuthKind.Merchant, AuthKind.UserSession)
@Controller('v1/institutions')
export class InstitutionsController {
  constructor(private readonly institutions: InstitutionsService) {}

  @Get()
  @ApiOperation({
    summary: 'List institutions',
    description:
      'Served from the cache the worker refreshes (filled from the upstream on the first read if empty). Filters combine; ordered by id, paged by an opaque cursor.',
  })
  @ApiOkResponse({ type: ApiEnvelope(InstitutionDto, { list: true }) })
  @ApiBadRequestResponse({ type: ApiErrorResponse, description: 'VALIDATION_FAILED' })
  @ApiServiceUnavailableResponse(upstreamDown)
  async list(@Query() query: InstitutionsQueryDto, @TracingId() tracingId: string) {
    const limit = query.limit ?? 50;
    const { institutions, nextAfterId } = await this.institutions.list(
      { country: query.country, feature: query.feature, q: query.q },
      limit,
      decodeCursor(query.cursor, INSTITUTION_ID),
    );
    const nextCursor = nextAfterId ? encodeCursor(nextAfterId) : null;
    const filters = new URLSearchParams();
    for (const key of ['country', 'feature', 'q'] as const) {
      const value = query[key];
      if (value !== undefined) filters.set(key, value);
    }
    const base = filters.size > 0 ? `/v1/institutions?${filters.toString()}&` : '/v1/institutions?';
    const links = nextLink('', limit, nextCursor);
    return envelope(
      tracingId,
      institutions,
      { count: institutions.length, nextCursor },
      links?.next ? { next: `${base}${links.next.slice(1)}` } : undefined,
    );
  }

  @Get(':institutionId')
  @ApiOperation({ summary: 'One institution, with its features' })
  @ApiOkResponse({ type: ApiEnvelope(InstitutionDto) })
  @ApiNotFoundResponse({ type: ApiErrorResponse, description: 'NOT_FOUND' })
  @ApiServiceUnavailableResponse(upstreamDown)
  async get(@Param('institutionId') institutionId: string, @TracingId() tracingId: string) {
    return envelope(tracingId, await this.institutions.get(institutionId));
  }
}
