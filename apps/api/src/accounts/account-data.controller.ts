import { Body, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { TenantCaller } from '#libs/context';
import { FinancialDataService } from '#libs/domain/financial-data';
import {
  ApiAnswer,
  ApiCountMeta,
  ApiPsuHeaders,
  envelope,
  invalidRequest,
  Psu,
  type PsuInput,
  Tenant,
} from '#libs/http';
import { ApiInvalid, ApiMissing, dailyLimitResponse, upstreamFailures } from '../common/api-responses.js';
import { IdParam } from '../common/id-param.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { listEnvelope, pageMeta } from '../common/paging.js';
import { SessionReachableController } from '../common/session-reachable.decorator.js';
import { CategoriseTransactionsInput } from './inputs/categorise-transactions.input.js';
import { ListLiveTransactionsInput } from './inputs/list-live-transactions.input.js';
import { ListStatementsInput } from './inputs/list-statements.input.js';
import { BeneficiaryOutput } from './outputs/beneficiary.output.js';
import { StatementOutput } from './outputs/statement.output.js';
import { CategorisationOutput, TransactionOutput } from './outputs/transaction.output.js';

@SessionReachableController('accounts', 'v1/accounts')
export class AccountDataController {
  constructor(private readonly data: FinancialDataService) {}

  @Get(':accountId/statements')
  @ApiOperation({
    summary: "An account's statements",
    description:
      "Through to the bank with the account's consent (not stored). Up to `limit` (default 1000) statements a page; `meta.nextCursor` is set while more remain.",
  })
  @ApiAnswer(200, StatementOutput, { list: true })
  @ApiInvalid()
  @ApiMissing()
  @upstreamFailures()
  @ApiPsuHeaders()
  async statements(
    @IdParam('accountId') accountId: string,
    @Query() query: ListStatementsInput,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    const page = await this.data.statements(caller, accountId, query, psu);
    const { meta } = pageMeta(page.statements.length, page.nextCursor);
    return envelope(page.statements, meta);
  }

  @Get(':accountId/beneficiaries')
  @ApiOperation({
    summary: "An account's beneficiaries",
    description: "Through to the bank with the account's consent (not stored).",
  })
  @ApiAnswer(200, BeneficiaryOutput, { list: true })
  @ApiInvalid('VALIDATION_FAILED: a malformed PSU header')
  @ApiMissing()
  @upstreamFailures()
  @ApiPsuHeaders()
  async beneficiaries(
    @IdParam('accountId') accountId: string,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    const beneficiaries = await this.data.beneficiaries(caller, accountId, psu);
    return listEnvelope(beneficiaries);
  }

  @Post(':accountId/transactions/categorisation')
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({
    summary: "Categorise an account's transactions (Data Plus)",
    description:
      'Synchronous: the BFF asks the upstream to categorise, reads the result back and answers both the `categorisationId` and the categorised transactions (amounts as decimal strings). An empty period answers an empty list.',
  })
  @ApiAnswer(201, CategorisationOutput, { meta: ApiCountMeta })
  @ApiInvalid()
  @ApiMissing()
  @upstreamFailures()
  async categorise(
    @IdParam('accountId') accountId: string,
    @Body() body: CategoriseTransactionsInput,
    @Tenant() caller: TenantCaller,
  ) {
    const result = await this.data.categorise(caller, accountId, {
      categorisationType: body.categorisationType,
      countryCode: body.countryCode,
    });
    return envelope(result, { count: result.transactions.length });
  }

  @Get(':accountId/transactions/live')
  @ApiOperation({
    summary: "An account's transactions, live from the bank",
    description:
      "Straight through to the upstream's real-time (cursor) endpoint, newest first, one upstream page per call: the bank decides its size (no `limit`; the sandbox's banks send 250) and gives no total. Records have the stored transactions' shape: `enrichment` and `transactionMutability`, which the bank's real-time endpoint does not give, come from the record's stored copy, so they are absent only on a record no sync has stored yet. `meta.nextCursor` is our own signed cursor wrapping the upstream's, valid only for this account and merchant; pass it back as `cursor` (alone) for the next page. Amounts are decimal strings.",
  })
  @ApiAnswer(200, TransactionOutput, { list: true })
  @ApiInvalid('VALIDATION_FAILED (a bad cursor too)')
  @ApiMissing()
  @upstreamFailures()
  @dailyLimitResponse()
  @ApiPsuHeaders()
  async live(
    @IdParam('accountId') accountId: string,
    @Query() query: ListLiveTransactionsInput,
    @Tenant() caller: TenantCaller,
    @Psu() psu: PsuInput,
  ) {
    if (query.cursor !== undefined && (query.from !== undefined || query.before !== undefined)) {
      // The upstream cursor already carries the range; a second range would be silently ignored.
      throw invalidRequest([{ field: 'cursor', issue: 'must not be combined with from or before' }]);
    }
    const page = await this.data.liveTransactions(caller, accountId, query, psu);
    const { meta, links } = pageMeta(page.records.length, page.nextCursor, {
      path: `/v1/accounts/${encodeURIComponent(accountId)}/transactions/live`,
    });
    return envelope(page.records, meta, links);
  }
}
