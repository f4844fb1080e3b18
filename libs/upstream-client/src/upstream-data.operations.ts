import type {
  Account,
  Balances,
  Beneficiary,
  CategorisationCreated,
  CategorisationRequest,
  RealTimeTransactionsQuery,
  Statement,
  StatementsQuery,
  Transaction,
  TransactionsQuery,
} from './upstream.types.js';
import { asPage, type UpstreamClientCore } from './upstream-client.core.js';
import { cursorPages, offsetPages, type PagingOptions } from './upstream-paging.iterator.js';
import { type ConsentCallOptions, type RequestSpec, segment, type SendOptions } from './upstream-request.js';

export interface CursorPagingQuery extends RealTimeTransactionsQuery {
  /** A cursor from a previous page's `links`; `from`/`before` only go on the first request. */
  cursor?: string;
}

function offsetQuery(q: TransactionsQuery, offset = q.offset, limit = q.limit) {
  return {
    from: q.from,
    before: q.before,
    limit,
    sort: q.sort,
    offset,
    ...(q.with?.length ? { with: q.with.join(',') } : {}),
  };
}

/**
 * The upstream's financial data (spec §4.2), read with a consent token: accounts, balances,
 * transactions, statements, beneficiaries and categorisation. `upstream.data`.
 */
export class UpstreamDataOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  /** GET /accounts (getAccounts). */
  getAccounts(options: ConsentCallOptions) {
    return this.core.send<Account[]>(
      { operation: 'getAccounts', consent: 'required', method: 'GET', path: '/accounts' },
      options,
    );
  }

  /** GET /accounts/{accountId} (getAccount). */
  getAccount(accountId: string, options: ConsentCallOptions) {
    return this.core.send<Account>(
      {
        operation: 'getAccount',
        consent: 'required',
        method: 'GET',
        path: `/accounts/${segment(accountId)}`,
      },
      options,
    );
  }

  /** GET /accounts/{accountId}/balances. */
  getAccountBalances(accountId: string, options: ConsentCallOptions) {
    return this.core.send<Balances>(
      {
        operation: 'getAccountBalances',
        consent: 'required',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/balances`,
      },
      options,
    );
  }

  /** GET /accounts/{accountId}/transactions, one page (offset paging, upstream spec §4.2.1). */
  getTransactions(accountId: string, query: TransactionsQuery, options: ConsentCallOptions) {
    return this.transactionsPage(accountId, query, options);
  }

  private transactionsPage(accountId: string, query: TransactionsQuery, options: SendOptions) {
    return this.core
      .send<Transaction[]>(
        {
          operation: 'getTransactions',
          consent: 'required',
          method: 'GET',
          path: `/accounts/${segment(accountId)}/transactions`,
          query: offsetQuery(query),
        },
        options,
      )
      .then((page) => asPage(page, 'getTransactions'));
  }

  /** Every transactions page from `query.offset` (default 0), by the spec's offset rules. */
  transactionPages(accountId: string, query: TransactionsQuery, options: ConsentCallOptions & PagingOptions) {
    const walk = this.core.walkOptions(options);
    return offsetPages(
      'getTransactions',
      (offset, limit, page) =>
        this.transactionsPage(accountId, { ...query, offset, limit }, { ...walk, page }),
      query,
      options,
    );
  }

  /** GET /accounts/{accountId}/real-time/transactions, one page (cursor paging, private beta). */
  getRealTimeTransactions(accountId: string, query: CursorPagingQuery, options: ConsentCallOptions) {
    return this.realTimePage(accountId, query, options);
  }

  private realTimePage(accountId: string, query: CursorPagingQuery, options: SendOptions) {
    return this.core
      .send<Transaction[]>(this.realTimeSpec(accountId, query), options)
      .then((page) => asPage(page, 'getRealTimeTransactions'));
  }

  private realTimeSpec(accountId: string, query: CursorPagingQuery): Omit<RequestSpec, 'retry'> {
    const q =
      query.cursor === undefined ? { from: query.from, before: query.before } : { cursor: query.cursor };
    return {
      operation: 'getRealTimeTransactions',
      consent: 'required',
      method: 'GET',
      path: `/accounts/${segment(accountId)}/real-time/transactions`,
      query: q,
    };
  }

  /** Every real-time transactions page, following `links.next` to the final page. */
  realTimeTransactionPages(
    accountId: string,
    query: RealTimeTransactionsQuery,
    options: ConsentCallOptions & PagingOptions,
  ) {
    const walk = this.core.walkOptions(options);
    return cursorPages(
      'getRealTimeTransactions',
      (cursor, page) =>
        this.realTimePage(accountId, cursor === undefined ? query : { cursor }, { ...walk, page }),
      options,
    );
  }

  /** GET /accounts/{accountId}/statements, one page. */
  getStatements(accountId: string, query: StatementsQuery, options: ConsentCallOptions) {
    return this.statementsPage(accountId, query, options);
  }

  private statementsPage(accountId: string, query: StatementsQuery, options: SendOptions) {
    return this.core
      .send<Statement[]>(
        {
          operation: 'getStatements',
          consent: 'required',
          method: 'GET',
          path: `/accounts/${segment(accountId)}/statements`,
          query: offsetQuery(query),
        },
        options,
      )
      .then((page) => asPage(page, 'getStatements'));
  }

  /** Every statements page (offset paging, same rules as transactions). */
  statementPages(accountId: string, query: StatementsQuery, options: ConsentCallOptions & PagingOptions) {
    const walk = this.core.walkOptions(options);
    return offsetPages(
      'getStatements',
      (offset, limit, page) => this.statementsPage(accountId, { ...query, offset, limit }, { ...walk, page }),
      query,
      options,
    );
  }

  /** GET /accounts/{accountId}/statements/{statementId}. */
  getStatement(accountId: string, statementId: string, options: ConsentCallOptions) {
    return this.core.send<Statement>(
      {
        operation: 'getStatement',
        consent: 'required',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/statements/${segment(statementId)}`,
      },
      options,
    );
  }

  /** GET /accounts/{accountId}/beneficiaries (the answer carries `data` only, no `meta`). */
  getBeneficiaries(accountId: string, options: ConsentCallOptions) {
    return this.core.send<Beneficiary[]>(
      {
        operation: 'getBeneficiaries',
        consent: 'required',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/beneficiaries`,
      },
      options,
    );
  }

  /** POST /accounts/{accountId}/transactions/categorisation (Data Plus). */
  createCategorisation(accountId: string, body: CategorisationRequest, options: ConsentCallOptions) {
    return this.core.send<CategorisationCreated>(
      {
        operation: 'createTransactionsCategorisation',
        consent: 'required',
        method: 'POST',
        path: `/accounts/${segment(accountId)}/transactions/categorisation`,
        body,
        contentType: 'application/json',
      },
      options,
    );
  }

  /**
   * GET /accounts/{accountId}/transactions/categorisation/{categorisationId}: `data` is an object
   * holding `transactions`, not a list.
   */
  getCategorisation(accountId: string, categorisationId: string, options: ConsentCallOptions) {
    return this.core.send<{ transactions: Transaction[] }>(
      {
        operation: 'getCategorisedTransactions',
        consent: 'required',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/transactions/categorisation/${segment(categorisationId)}`,
      },
      options,
    );
  }
}
