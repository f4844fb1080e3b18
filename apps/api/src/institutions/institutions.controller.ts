import { Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOperation, ApiServiceUnavailableResponse } from '@nestjs/swagger';
import { InstitutionsService } from '#libs/domain/institutions';
import { ApiAnswer, ApiErrorResponse, envelope } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { keysetPage } from '../common/paging.js';
import { SessionReachableController } from '../common/session-reachable.decorator.js';
import { ListInstitutionsInput } from './inputs/list-institutions.input.js';
import { InstitutionOutput } from './outputs/institution.output.js';

const INSTITUTION_ID = /^[\x20-\x7e]{1,255}$/;
const upstreamDown = {
  type: ApiErrorResponse,
  description: 'UPSTREAM_UNAVAILABLE (only while the cache is empty and the upstream cannot fill it)',
};

@SessionReachableController('institutions', 'v1/institutions')
export class InstitutionsController {
  constructor(private readonly institutions: InstitutionsService) {}

  @Get()
  @ApiOperation({
    summary: 'List institutions',
    description:
      'Served from the cache the worker refreshes (filled from the upstream on the first read if empty). Filters combine; ordered by id, paged by an opaque cursor.',
  })
  @ApiAnswer(200, InstitutionOutput, { list: true })
  @ApiInvalid()
  @ApiServiceUnavailableResponse(upstreamDown)
  async list(@Query() query: ListInstitutionsInput) {
    const filters = { country: query.country, feature: query.feature, q: query.q };
    const page = keysetPage(query, '/v1/institutions', { key: INSTITUTION_ID, filters });
    const { institutions, nextAfterId } = await this.institutions.list(filters, page.limit, page.after);
    return page.answer(institutions, nextAfterId);
  }

  @Get(':institutionId')
  @ApiOperation({ summary: 'One institution, with its features' })
  @ApiAnswer(200, InstitutionOutput)
  @ApiNotFoundResponse({ type: ApiErrorResponse, description: 'NOT_FOUND' })
  @ApiServiceUnavailableResponse(upstreamDown)
  async get(@Param('institutionId') institutionId: string) {
    return envelope(await this.institutions.get(institutionId));
  }
}
