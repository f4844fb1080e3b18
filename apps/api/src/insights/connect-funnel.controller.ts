import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { OperatorCaller, TenantCaller } from '#libs/context';
import { ConnectFunnelService } from '#libs/domain/consents';
import { ApiAnswer, Auth, AuthKind, envelope, Operator, Tenant } from '#libs/http';
import { ApiInvalid } from '../common/api-responses.js';
import { ConnectFunnelInput, OperatorConnectFunnelInput } from '../common/inputs/connect-funnel.input.js';
import { ConnectReportInput } from './inputs/connect-report.input.js';
import { ConnectFunnelOutput } from './outputs/connect-funnel.output.js';

const HOW =
  "Attempts to connect a bank in `<bff-connect>` by the day (UTC) they opened and the bank chosen: how many reached each step (opened, searched, chose, sent to the bank, returned), how each ended (connected, declined, cancelled, failed, abandoned, or still in progress) and the errors met on the way, by step and code. Where users drop out before a consent exists, which the conversion (GET /v1/insights/conversion) starts after. Built from the component's own reports: nothing personal in them.";

/** The connect funnel: `<bff-connect>`'s reports in, the funnel out (docs/insights.md). */
@ApiTags('insights')
@Controller()
export class ConnectFunnelController {
  constructor(private readonly funnel: ConnectFunnelService) {}

  @Post('v1/connect-funnel/reports')
  @HttpCode(204)
  @Auth(AuthKind.Merchant, AuthKind.UserSession)
  @ApiOperation({
    summary: 'Report a step of an attempt to connect a bank',
    description:
      "`<bff-connect>` sends these itself, with the user's session token; a page of your own that connects banks may send the same. At least once is fine: a step reached stays reached and the first end stands, in whatever order reports arrive. A report naming another merchant's attempt, or a consent no attempt sent to the bank, changes nothing.",
  })
  @ApiNoContentResponse({ description: 'Filed' })
  @ApiInvalid()
  async report(@Tenant() caller: TenantCaller, @Body() body: ConnectReportInput): Promise<void> {
    const { attemptId, consentId, event, institutionId, reason } = body;
    await this.funnel.report(caller, {
      attempt: attemptId ? { id: attemptId } : { consentId: consentId! },
      event,
      ...(institutionId ? { institutionId } : {}),
      ...(attemptId && consentId ? { consentId } : {}),
      ...(reason ? { reason } : {}),
    });
  }

  @Get('v1/insights/connect-funnel')
  @Auth(AuthKind.Merchant)
  @ApiOperation({ summary: 'The connect funnel by bank and day', description: HOW })
  @ApiAnswer(200, ConnectFunnelOutput)
  @ApiInvalid()
  async ofMerchant(@Tenant() caller: TenantCaller, @Query() query: ConnectFunnelInput) {
    return envelope(await this.funnel.ofMerchant(caller, query));
  }

  @Get('admin/insights/connect-funnel')
  @Auth(AuthKind.Operator)
  @ApiOperation({
    summary: 'The connect funnel by bank and day, across merchants',
    description: `${HOW} Every merchant's attempts together, or one merchant's (\`merchantId\`).`,
  })
  @ApiAnswer(200, ConnectFunnelOutput)
  @ApiInvalid()
  async forOperator(@Operator() operator: OperatorCaller, @Query() query: OperatorConnectFunnelInput) {
    return envelope(await this.funnel.forOperator(operator, query));
  }
}
