import { applyDecorators, Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { type CallParent, UPSTREAM_CALL_KEY, UpstreamCallsService } from '#libs/domain/upstream-calls';
import { ApiAnswer, Auth, AuthKind, Tenant } from '#libs/http';
import { ApiInvalid, ApiMissing } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { ListInput } from '../common/inputs/list.input.js';
import { keysetPage } from '../common/paging.js';
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
    return this.page(caller, 'consent', id, query, `/v1/consents/${id}/upstream-calls`);
  }

  @CallLog('syncs/:syncId/upstream-calls', "A sync run's upstream calls")
  @ApiAnswer(200, UpstreamCallOutput, { list: true })
  syncRun(@IdParam('syncId') id: string, @Query() query: ListInput, @Tenant() caller: TenantCaller) {
    return this.page(caller, 'sync-run', id, query, `/v1/syncs/${id}/upstream-calls`);
  }

  @CallLog('payments/:paymentId/upstream-calls', "A payment's upstream calls")
  @ApiAnswer(200, UpstreamCallOutput, { list: true })
  payment(@IdParam('paymentId') id: string, @Query() query: ListInput, @Tenant() caller: TenantCaller) {
    return this.page(caller, 'payment', id, query, `/v1/payments/${id}/upstream-calls`);
  }

  private async page(caller: TenantCaller, parent: CallParent, id: string, query: ListInput, path: string) {
    const page = keysetPage(query, path, { key: UPSTREAM_CALL_KEY });
    const { calls, nextBeforeId } = await this.calls.pageOf(caller, parent, id, page.limit, page.after);
    return page.answer(calls, nextBeforeId);
  }
}
