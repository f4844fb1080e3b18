import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ConsentLifecycleRepository } from '#libs/domain/consents';
import { ApiAnswer, Auth, AuthKind, envelope } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { CountConsentsInput } from './inputs/count-consents.input.js';
import { ConsentCountsOutput } from './outputs/consent-counts.output.js';

/** How many customers are about to drop off: consents by status and merchant. */
@ApiTags('operator')
@Auth(AuthKind.Operator)
@Controller('admin/consents')
export class AdminConsentsController {
  constructor(private readonly lifecycle: ConsentLifecycleRepository) {}

  @Get()
  @ApiOperation({
    summary: 'Consent counts by status and by merchant',
    description:
      'For example `?status=AUTHORIZED&expiringBefore=<in 7 days>`: the customers who drop off within a week unless they re-authorise.',
  })
  @ApiAnswer(200, ConsentCountsOutput)
  @ApiInvalid()
  async counts(@Query() query: CountConsentsInput) {
    return envelope(
      await this.lifecycle.counts({
        status: query.status,
        expiringBefore: query.expiringBefore ? new Date(query.expiringBefore) : undefined,
      }),
    );
  }
}
