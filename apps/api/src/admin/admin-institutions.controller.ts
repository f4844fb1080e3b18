import { Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { InstitutionsService } from '#libs/domain/institutions';
import { ApiEnvelope, ApiErrorResponse, Auth, AuthKind, TracingId, envelope } from '#libs/http';

export class InstitutionsRefreshDto {
  @ApiProperty({ description: 'Institutions the upstream listed (inserted or updated)' }) count: number;
  @ApiProperty({ description: 'Cached institutions the upstream no longer lists, removed' }) deleted: number;
}

@ApiTags('operator')
@Auth(AuthKind.Operator)
@Controller('admin/institutions')
export class AdminInstitutionsController {
  constructor(private readonly institutions: InstitutionsService) {}

  @Post('refresh')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Refresh the institutions cache now',
    description:
      'Replaces the cache with the upstream list in one transaction (rows the upstream no longer lists are deleted). An empty upstream list leaves the cache as it is.',
  })
  @ApiOkResponse({ type: ApiEnvelope(InstitutionsRefreshDto) })
  @ApiServiceUnavailableResponse({ type: ApiErrorResponse, description: 'UPSTREAM_UNAVAILABLE' })
  async refresh(@TracingId() tracingId: string) {
    return envelope(tracingId, await this.institutions.refreshInstitutions());
  }
}
