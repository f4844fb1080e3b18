import { Get, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiConflictResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { TenantCaller } from '#libs/context';
import type { ServedTransaction } from '#libs/domain/financial-data';
import { SyncService } from '#libs/domain/sync';
import { USER_PRESENT_MS } from '#libs/domain/sync-runs';
import {
  ApiAnswer,
  ApiErrorResponse,
  ApiPsuHeaders,
  envelope,
  envelopeBytes,
  Psu,
  type PsuInput,
  sendServedBytes,
  Tenant,
} from '#libs/http';
import { ApiInvalid, ApiMissing, dailyLimitResponse } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { ListInput } from '../common/inputs/list.input.js';
import { KeptAnswer, notKept } from '../common/kept-answer.hook.js';
import { SyncRunOutput } from '../common/outputs/sync-run.output.js';
import { syncRunsPage } from '../common/pages/account-pages.js';
import { pageMeta } from '../common/paging.js';
import { SessionReachableController } from '../common/session-reachable.decorator.js';
import { ListTransactionsInput } from './inputs/list-transactions.input.js';
import { SyncRequestedOutput } from './outputs/sync-run.output.js';
import { StoredTransactionsMeta, TransactionOutput } from './outputs/transaction.output.js';

@SessionReachableController('sync', 'v1')
export class SyncController {
  constructor(private readonly sync: SyncService) {}

  @Post('accounts/:accountId/sync')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Sync an account now',
    description: `Queues a sync of the account from the bank into our store. While one is queued or running, answers that one’s id. Watch it with GET /v1/syncs/{syncId}; a \`sync.succeeded\` or \`sync.failed\` event follows. With the user present (\`psu-ip-address\`, or a user session) the bank is read on their behalf and the read is not one of its daily allowance (\`sync.unattendedReads\`), if it starts within ${USER_PRESENT_MS / 60_000} minutes; without, it takes one, and none left answers 429.`,
  })
  @ApiAnswer(202, SyncRequestedOutput)
  @ApiMissing()
  @dailyLimitResponse()
  @ApiConflictResponse({
    type: ApiErrorResponse,
    description:
      'CONSENT_NOT_AUTHORISED: the account’s consent expired or was revoked; it must be authorised again. CONFLICT: the bank no longer lists the account under its consent, or the consent does not cover transactions (no ACCOUNT_TRANSACTIONS scope; connect again with it)',
  })
  @ApiPsuHeaders()
  async request(
    @IdParam('accountId') accountId: string,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    return envelope(await this.sync.requestSync(caller, accountId, psu));
  }

  @Get('accounts/:accountId/syncs')
  @ApiOperation({
    summary: "An account's sync history",
    description:
      'The account’s syncs (initial, scheduled and asked for), newest first, keyset-paged by an opaque cursor; each as GET /v1/syncs/{syncId} shows it. The newest SYNC_RUNS_KEPT_PER_ACCOUNT (100 by default) are kept; older ones are removed as new runs end.',
  })
  @ApiAnswer(200, SyncRunOutput, { list: true })
  @ApiInvalid('VALIDATION_FAILED (a bad cursor too)')
  @ApiMissing()
  async history(
    @IdParam('accountId') accountId: string,
    @Query() query: ListInput,
    @Tenant() caller: TenantCaller,
  ) {
    return syncRunsPage(this.sync, caller, accountId, query);
  }

  @Get('syncs/:syncId')
  @ApiOperation({ summary: 'One sync: status, window, progress and error' })
  @ApiAnswer(200, SyncRunOutput)
  @ApiMissing()
  async get(@IdParam('syncId') syncId: string, @Tenant() caller: TenantCaller) {
    return envelope(await this.sync.getRun(caller, syncId));
  }

  @Get('accounts/:accountId/transactions')
  @KeptAnswer({ account: 'accountId' })
  @ApiTags('accounts')
  @ApiOperation({
    summary: "An account's transactions, from our store",
    description:
      'What the background sync stored (never a call to the bank), newest first by default, keyset-paged by an opaque cursor. Each record has the upstream transaction record’s fields; amounts are decimal strings. `meta.complete` is true once a sync of the account has succeeded (its first reads everything the consent allows); until then the list holds what was written so far, and `meta.syncError` says why when a sync failed.',
  })
  @ApiAnswer(200, TransactionOutput, { list: true, meta: StoredTransactionsMeta })
  @ApiInvalid('VALIDATION_FAILED (a bad cursor too)')
  @ApiMissing()
  async transactions(
    @IdParam('accountId') accountId: string,
    @Query() query: ListTransactionsInput,
    @Tenant() caller: TenantCaller,
    // Sent here, not returned to Nest: the answer is a stream of the kept records (envelopeBytes). Once
    // served it is kept (KeptAnswer) until a change of the account's transactions or of the merchant's.
    @Res() reply: FastifyReply,
  ) {
    const from = query.from !== undefined ? new Date(query.from) : undefined;
    const before = query.before !== undefined ? new Date(query.before) : undefined;
    const { sort, limit } = query;
    const page = await this.sync.listTransactions(caller, accountId, {
      from,
      before,
      status: query.status,
      sort,
      limit,
      cursor: query.cursor,
    });
    const { meta, links } = pageMeta(page.count, page.nextCursor, {
      path: `/v1/accounts/${encodeURIComponent(accountId)}/transactions`,
      query: { from: query.from, before: query.before, status: query.status, sort, limit: String(limit) },
    });
    if (page.source === 'replica') notKept(reply);
    // The records are stored as JSON text in the shape served: sent as they are, never parsed here.
    return sendServedBytes(
      reply,
      envelopeBytes<ServedTransaction>(
        page.recordsJson,
        { ...meta, complete: page.complete, syncStatus: page.syncStatus, syncError: page.syncError },
        links,
      ),
    );
  }
}
