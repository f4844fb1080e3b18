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
import type { UpstreamClientCore } from './upstream-client.core.js';
import { cursorPages, type PagingOptions } from './upstream-paging.iterator.js';
import type { ConsentCallOptions, SendOptions } from './upstream-request.js';

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
    return this.core.call<Account[]>('getAccounts', {}, options);
  }

  /** GET /accounts/{accountId} (getAccount). */
  getAccount(accountId: string, options: ConsentCallOptions) {
    return this.core.call<Account>('getAccount', { ids: { accountId } }, options);
  }

  /** GET /accounts/{accountId}/balances. */
  getAccountBalances(accountId: string, options: ConsentCallOptions) {
    return this.core.call<Balances>('getAccountBalances', { ids: { accountId } }, options);
  }

  /** GET /accounts/{accountId}/transactions, one page (offset paging, upstream spec §4.2.1). */
  getTransactions(accountId: string, query: TransactionsQuery, options: ConsentCallOptions) {
    return this.offsetPage<Transaction>('getTransactions', accountId, query, options);
  }

  /** Every transactions page from `query.offset` (default 0), by the spec's offset rules. */
  transactionPages(accountId: string, query: TransactionsQuery, options: ConsentCallOptions & PagingOptions) {
    return this.offsetWalk<Transaction>('getTransactions', accountId, query, options);
  }

  /** GET /accounts/{accountId}/real-time/transactions, one page (cursor paging, private beta). */
  getRealTimeTransactions(accountId: string, query: CursorPagingQuery, options: ConsentCallOptions) {
    return this.realTimePage(accountId, query, options);
  }

  private realTimePage(accountId: string, query: CursorPagingQuery, options: SendOptions) {
    const q =
      query.cursor === undefined ? { from: query.from, before: query.before } : { cursor: query.cursor };
    return this.core.page<Transaction>('getRealTimeTransactions', { ids: { accountId }, query: q }, options);
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
    return this.offsetPage<Statement>('getStatements', accountId, query, options);
  }

  /** Every statements page (offset paging, same rules as transactions). */
  statementPages(accountId: string, query: StatementsQuery, options: ConsentCallOptions & PagingOptions) {
    return this.offsetWalk<Statement>('getStatements', accountId, query, options);
  }

  /** One page of an account's offset-paged list: transactions and statements page by the same rules. */
  private offsetPage<T>(
    operation: 'getTransactions' | 'getStatements',
    accountId: string,
    query: TransactionsQuery | StatementsQuery,
    options: SendOptions,
  ) {
    return this.core.page<T>(operation, { ids: { accountId }, query: offsetQuery(query) }, options);
  }

  /** Every page of an account's offset-paged list from `query.offset` (default 0). */
  private offsetWalk<T>(
    operation: 'getTransactions' | 'getStatements',
    accountId: string,
    query: TransactionsQuery | StatementsQuery,
    options: ConsentCallOptions & PagingOptions,
  ) {
    const page = (q: TransactionsQuery | StatementsQuery, o: SendOptions) =>
      this.offsetPage<T>(operation, accountId, q, o);
    return this.core.offsetPages(operation, page, query, options);
  }

  /** GET /accounts/{accountId}/statements/{statementId}. */
  getStatement(accountId: string, statementId: string, options: ConsentCallOptions) {
    return this.core.call<Statement>('getStatement', { ids: { accountId, statementId } }, options);
  }

  /** GET /accounts/{accountId}/beneficiaries (the answer carries `data` only, no `meta`). */
  getBeneficiaries(accountId: string, options: ConsentCallOptions) {
    return this.core.call<Beneficiary[]>('getBeneficiaries', { ids: { accountId } }, options);
  }

  /** POST /accounts/{accountId}/transactions/categorisation (Data Plus). */
  createCategorisation(accountId: string, body: CategorisationRequest, options: ConsentCallOptions) {
    const parts = { ids: { accountId }, body };
    return this.core.call<CategorisationCreated>('createTransactionsCategorisation', parts, options);
  }

  /**
   * GET /accounts/{accountId}/transactions/categorisation/{categorisationId}: `data` is an object
   * holding `transactions`, not a list.
   */
  getCategorisation(accountId: string, categorisationId: string, options: ConsentCallOptions) {
    const parts = { ids: { accountId, categorisationId } };
    return this.core.call<{ transactions: Transaction[] }>('getCategorisedTransactions', parts, options);
  }
}
