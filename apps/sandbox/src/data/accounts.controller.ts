import { Readable } from 'node:stream';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Ctx, envelope, fromMinor, type SandboxContext, SandboxError } from '../core/index.js';
import {
  CategorisationRequestDto,
  CategorisedTransactionsQueryDto,
  OffsetListQueryDto,
  RealTimeTransactionsQueryDto,
  TransactionsQueryDto,
} from './financial-data.dto.js';
import { FinancialDataService } from './financial-data.service.js';
import { FinancialDataStore } from './financial-data.store.js';
import type { BodyPieces } from './json-pieces.js';
import { parseDateParam, windowOf } from './paging.js';
import { UnattendedReadsService } from './unattended-reads.service.js';
import { accountWire, balancesWire, beneficiaryWire, categorisedWire, statementWire } from './wire-format.js';

const JSON_TYPE = 'application/json;charset=UTF-8';

/** A body written as pieces (JsonPieces), sent one after another under its length. */
function sendPieces(reply: FastifyReply, body: BodyPieces): Readable {
  void reply.type(JSON_TYPE).header('content-length', body.bytes);
  return Readable.from(body.pieces);
}

/** Financial data (upstream spec §4.2): accounts, balances, transactions, statements, beneficiaries, categorisation. */
@Controller('accounts')
export class AccountsController {
  constructor(
    private readonly data: FinancialDataService,
    private readonly store: FinancialDataStore,
    private readonly unattended: UnattendedReadsService,
  ) {}

  @Get()
  list(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Req() request: FastifyRequest,
  ) {
    const consent = this.data.authorise(ctx, token, 'accounts');
    const now = this.data.nowMs();
    return envelope(
      request,
      this.store.accountsFor(consent).map((a) => accountWire(a, now)),
    );
  }

  @Get(':accountId')
  one(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Param('accountId') accountId: string,
    @Req() request: FastifyRequest,
  ) {
    const consent = this.data.authorise(ctx, token, 'account');
    return envelope(request, accountWire(this.data.account(consent, accountId), this.data.nowMs()));
  }

  @Get(':accountId/balances')
  balances(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Param('accountId') accountId: string,
    @Req() request: FastifyRequest,
  ) {
    const consent = this.data.authorise(ctx, token, 'balances');
    const account = this.data.account(consent, accountId);
    const { bookedMinor, pendingMinor } = account.ledger.balances();
    return envelope(request, {
      mainBalanceAmount: {
        amount: fromMinor(bookedMinor + pendingMinor, account.currency),
        currency: account.currency,
      },
      balances: balancesWire(account, this.data.nowMs()),
    });
  }

  @Get(':accountId/transactions')
  transactions(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Param('accountId') accountId: string,
    @Query() query: TransactionsQueryDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Readable {
    const consent = this.data.authorise(ctx, token, 'transactions');
    const account = this.data.account(consent, accountId);
    this.unattended.admit(ctx, consent, account.id, !query.offset);
    return sendPieces(reply, this.data.transactionsBody(request, consent, account, query));
  }

  @Get(':accountId/real-time/transactions')
  realTime(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Param('accountId') accountId: string,
    @Query() query: RealTimeTransactionsQueryDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Readable {
    const consent = this.data.authorise(ctx, token, 'transactions');
    const account = this.data.account(consent, accountId);
    this.unattended.admit(ctx, consent, account.id, query.cursor === undefined);
    return sendPieces(reply, this.data.realTimeBody(request, consent, account, query));
  }

  @Get(':accountId/statements')
  statements(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Param('accountId') accountId: string,
    @Query() query: OffsetListQueryDto,
    @Req() request: FastifyRequest,
  ) {
    const consent = this.data.authorise(ctx, token, 'statements');
    const account = this.data.account(consent, accountId);
    const paging = this.data.offsetRequest(query);
    // A statement is dated by its start; the consent's transaction range does not narrow statements.
    const window = windowOf(paging.fromMs, paging.beforeMs, {});
    const inWindow = account
      .statements()
      .filter((s) => s.startMs >= window.fromMs && s.startMs <= window.beforeMs);
    if (paging.sort === '-date') inWindow.reverse();
    const { pagination, links } = this.data.offsetPaging(
      `/accounts/${encodeURIComponent(account.id)}/statements`,
      paging,
      inWindow.length,
    );
    return envelope(request, inWindow.slice(paging.offset, paging.offset + paging.limit).map(statementWire), {
      meta: { pagination },
      links,
    });
  }

  @Get(':accountId/statements/:statementId')
  statement(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Param('accountId') accountId: string,
    @Param('statementId') statementId: string,
    @Req() request: FastifyRequest,
  ) {
    const consent = this.data.authorise(ctx, token, 'statement');
    const account = this.data.account(consent, accountId);
    const statement = account.statements().find((s) => s.id === statementId);
    if (!statement) throw SandboxError.notFound(`Statement ${statementId} was not found`);
    return envelope(request, statementWire(statement));
  }

  /** Spec 2.1: this response carries only `data`. */
  @Get(':accountId/beneficiaries')
  beneficiaries(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Param('accountId') accountId: string,
  ) {
    const consent = this.data.authorise(ctx, token, 'beneficiaries');
    return { data: this.data.account(consent, accountId).beneficiaries.map(beneficiaryWire) };
  }

  /**
   * Data Plus: starts a categorisation of the account's transactions in [from, before]. The sandbox
   * categorises at once; the results are read with the GET below.
   */
  @Post(':accountId/transactions/categorisation')
  @HttpCode(201)
  categorise(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Param('accountId') accountId: string,
    @Body() body: CategorisationRequestDto,
    @Req() request: FastifyRequest,
  ) {
    const { categorisationType, countryCode } = body;
    if (!categorisationType || !countryCode) {
      throw SandboxError.mandatoryFields(
        [categorisationType ? '' : 'categorisationType', countryCode ? '' : 'countryCode'].filter(Boolean),
      );
    }
    const fromMs = parseDateParam('from', body.from);
    const beforeMs = parseDateParam('before', body.before);
    const consent = this.data.authorise(ctx, token, 'transactions');
    const account = this.data.account(consent, accountId);
    const record = this.store.createCategorisation({
      applicationId: consent.applicationId,
      seed: FinancialDataStore.seedOf(consent),
      accountId: account.id,
      categorisationType,
      countryCode,
      fromMs,
      beforeMs,
    });
    return envelope(request, { categorisationId: record.id });
  }

  @Get(':accountId/transactions/categorisation/:categorisationId')
  categorised(
    @Ctx() ctx: SandboxContext,
    @Headers('consent') token: string | undefined,
    @Param('accountId') accountId: string,
    @Param('categorisationId') categorisationId: string,
    @Query() query: CategorisedTransactionsQueryDto,
    @Req() request: FastifyRequest,
  ) {
    const consent = this.data.authorise(ctx, token, 'transactions');
    const account = this.data.account(consent, accountId);
    const record = this.store.categorisation(consent, account.id, categorisationId);
    const window = windowOf(record.fromMs, record.beforeMs, consent);
    const limit = query.limit ?? 100;
    const page = query.page ?? 1;
    const { total, records } = account.ledger.page(window, '-date', (page - 1) * limit, limit);
    if (total === 0) {
      const message =
        'Transaction retrieval found no transactions in the selected period; adjust from and before and retry';
      throw new SandboxError(404, message, [{ type: 'NOT_FOUND', code: 16002, message }]);
    }
    return envelope(
      request,
      {
        transactions: records.map((tx) =>
          categorisedWire(tx, account, consent.institutionId, record.categorisationType),
        ),
      },
      { meta: { count: total, pageCount: Math.ceil(total / limit) } },
    );
  }
}
