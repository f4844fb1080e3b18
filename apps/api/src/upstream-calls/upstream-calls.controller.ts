import { applyDecorators, Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { UpstreamCallsService } from '#libs/domain/upstream-calls';
import { ApiAnswer, Auth, AuthKind, Tenant } from '#libs/http';
import { ApiInvalid, ApiMissing } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { ListInput } from '../common/inputs/list.input.js';
import { callLogPage } from '../common/pages/call-log-pages.js';
import { UpstreamCallOutput } from './outputs/upstream-call.output.js';

const ABOUT =
  'Every attempt of every call we made to the upstream for it, newest first, keyset-paged: operation, institution, HTTP status, our error code, duration, attempt and the upstream’s tracing id (what to quote to the bank). Never a body, a token or personal data. Written within about a second of the call; kept as long as events (EVENT_RETENTION_DAYS).';
/** What each log route documents beside its answer (ApiAnswer, which types the handler): its refusals. */
const CallLog = (path: string, summary: string, description = ABOUT) =>
  applyDecorators(Get(path), ApiOperation({ summary, description }), ApiInvalid(), ApiMissing());

/** The upstream call log of a consent, a sync run or a payment (docs/upstream-calls.md). */
@ApiTags('upstream calls')
@Auth(AuthKind.Merchant)
@Controller('v1')
export class UpstreamCallsController {
  constructor(private readonly calls: UpstreamCallsService) {}

  @CallLog(
    'consents/:consentId/upstream-calls',
    "A consent's upstream calls",
    `${ABOUT} Its runs' and payments' too.`,
  )
  @ApiAnswer(200, UpstreamCallOutput, { list: true })
  consent(@IdParam('consentId') id: string, @Query() query: ListInput, @Tenant() caller: TenantCaller) {
    return callLogPage(this.calls, caller, 'consent', id, query);
  }

  @CallLog('syncs/:syncId/upstream-calls', "A sync run's upstream calls")
  @ApiAnswer(200, UpstreamCallOutput, { list: true })
  syncRun(@IdParam('syncId') id: string, @Query() query: ListInput, @Tenant() caller: TenantCaller) {
    return callLogPage(this.calls, caller, 'sync-run', id, query);
  }

  @CallLog('payments/:paymentId/upstream-calls', "A payment's upstream calls")
  @ApiAnswer(200, UpstreamCallOutput, { list: true })
  payment(@IdParam('paymentId') id: string, @Query() query: ListInput, @Tenant() caller: TenantCaller) {
    return callLogPage(this.calls, caller, 'payment', id, query);
  }
}
