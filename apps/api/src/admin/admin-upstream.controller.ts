import { Controller, Get, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { UpstreamApplicationsService } from '#libs/domain/merchants';
import { ApiEnvelope, ApiErrorResponse, Auth, AuthKind, PageQueryDto, TracingId } from '#libs/http';
import { UpstreamApplicationDto } from './admin-merchants.dto.js';
import { decodeCursor, pageEnvelope } from '../common/paging.js';

@ApiTags('operator')
@Auth(AuthKind.Operator)
@Controller('admin/upstream')
export class AdminUpstreamController {
  constructor(private readonly applications: UpstreamApplicationsService) {}

  @Get('applications')
  @ApiOperation({
    summary: "The upstream's sub-applications",
    description:
      'Straight through to the upstream (GET /applications), its offset paging behind an opaque cursor.',
  })
  @ApiOkResponse({ type: ApiEnvelope(UpstreamApplicationDto, { list: true }) })
  @ApiBadRequestResponse({ type: ApiErrorResponse, description: 'VALIDATION_FAILED' })
  @ApiServiceUnavailableResponse({ type: ApiErrorResponse, description: 'UPSTREAM_UNAVAILABLE' })
  async list(@Query() query: PageQueryDto, @TracingId() tracingId: string) {
    const limit = query.limit ?? 50;
    const offset = Number(decodeCursor(query.cursor, /^\d{1,9}$/) ?? 0);
    const { applications, nextOffset } = await this.applications.page(offset, limit);
    return pageEnvelope(tracingId, applications, {
      path: '/admin/upstream/applications',
      limit,
      after: nextOffset !== null ? String(nextOffset) : null,
    });
  }
}
