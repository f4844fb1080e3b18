import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { OperatorCaller, TenantCaller } from '#libs/context';
import { InstitutionHealthService } from '#libs/domain/upstream-calls';
import { ApiAnswer, Auth, AuthKind, envelope, Operator, Tenant } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import {
  InstitutionHealthInput,
  OperatorInstitutionHealthInput,
} from '../common/inputs/institution-health.input.js';
import { InstitutionHealthOutput } from './outputs/institution-health.output.js';

const HOW =
  "The upstream error rate and 95th-percentile latency of the calls made to each bank for your consents, syncs and payments, from the upstream call log: over the range, and an hour (or a day) at a time for the trend. An error is the bank's or the upstream's failure (no answer, a 5xx, a 429, the bank's failure relayed), never a refusal of what was asked (a 4xx). Every attempt counts, retries too.";

/** Institution health by institution and hour or day, Plaid's (docs/insights.md). */
@ApiTags('insights')
@Controller()
export class InstitutionHealthController {
  constructor(private readonly health: InstitutionHealthService) {}

  @Get('v1/insights/institution-health')
  @Auth(AuthKind.Merchant)
  @ApiOperation({ summary: 'Upstream error rate and p95 latency by institution', description: HOW })
  @ApiAnswer(200, InstitutionHealthOutput)
  @ApiInvalid()
  async ofMerchant(@Tenant() caller: TenantCaller, @Query() query: InstitutionHealthInput) {
    return envelope(await this.health.ofMerchant(caller, query));
  }

  @Get('admin/insights/institution-health')
  @Auth(AuthKind.Operator)
  @ApiOperation({
    summary: 'Upstream error rate and p95 latency by institution, across merchants',
    description: `${HOW} Every merchant's calls together, or one merchant's (\`merchantId\`).`,
  })
  @ApiAnswer(200, InstitutionHealthOutput)
  @ApiInvalid()
  async forOperator(@Operator() operator: OperatorCaller, @Query() query: OperatorInstitutionHealthInput) {
    return envelope(await this.health.forOperator(operator, query));
  }
}
