import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { UpstreamApplicationsService } from '#libs/domain/merchants';
import { ApiAnswer, ApiErrorResponse, Auth, AuthKind } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { ListInput } from '../common/inputs/list.input.js';
import { keysetPage } from '../common/paging.js';
import { UpstreamApplicationOutput } from './outputs/upstream-application.output.js';

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
  @ApiAnswer(200, UpstreamApplicationOutput, { list: true })
  @ApiInvalid()
  @ApiServiceUnavailableResponse({ type: ApiErrorResponse, description: 'UPSTREAM_UNAVAILABLE' })
  async list(@Query() query: ListInput) {
    // The upstream pages by offset: the key a page starts after is the offset it starts at.
    const page = keysetPage(query, '/admin/upstream/applications', { key: /^\d{1,9}$/ });
    const { applications, nextOffset } = await this.applications.page(Number(page.after ?? 0), page.limit);
    return page.answer(applications, nextOffset !== null ? String(nextOffset) : null);
  }
}
