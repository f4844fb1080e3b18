import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { OperatorCaller, TenantCaller } from '#libs/context';
import { ConsentConversionService } from '#libs/domain/consents';
import { ApiAnswer, Auth, AuthKind, envelope, Operator, Tenant } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { ConversionInput, OperatorConversionInput } from '../common/inputs/conversion.input.js';
import { ConversionOutput } from './outputs/conversion.output.js';

const HOW =
  'Data consents by the day (UTC) they were started and their institution, each under the one outcome it reached (authorised, rejected, abandoned, failed, pending), with how many reached a first successful sync and the median time to each: where your users drop off, bank by bank. Read from the store as it stands, so a day still fills in while its consents are pending.';

/** Connection conversion by institution and day, Plaid's funnel (docs/insights.md). */
@ApiTags('insights')
@Controller()
export class ConversionController {
  constructor(private readonly conversion: ConsentConversionService) {}

  @Get('v1/insights/conversion')
  @Auth(AuthKind.Merchant)
  @ApiOperation({ summary: 'Connection conversion by institution and day', description: HOW })
  @ApiAnswer(200, ConversionOutput)
  @ApiInvalid()
  async ofMerchant(@Tenant() caller: TenantCaller, @Query() query: ConversionInput) {
    return envelope(await this.conversion.ofMerchant(caller, query));
  }

  @Get('admin/insights/conversion')
  @Auth(AuthKind.Operator)
  @ApiOperation({
    summary: 'Connection conversion by institution and day, across merchants',
    description: `${HOW} Every merchant's consents together, or one merchant's (\`merchantId\`).`,
  })
  @ApiAnswer(200, ConversionOutput)
  @ApiInvalid()
  async forOperator(@Operator() operator: OperatorCaller, @Query() query: OperatorConversionInput) {
    return envelope(await this.conversion.forOperator(operator, query));
  }
}
