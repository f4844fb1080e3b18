import { randomUUID } from 'node:crypto';
import type { Registry } from 'prom-client';
import { currentRequestId } from '#libs/context';
import type { AppLogger } from '#libs/observability';
import { type BreakerOptions, DEFAULT_BREAKER } from './upstream.breakers.js';
import { UpstreamError } from './upstream.error.js';
import { UpstreamMetrics } from './upstream.metrics.js';
import {
  type BodyLimits,
  type CallOptions,
  type ConsentCallOptions,
  DEFAULT_BODY_LIMITS,
  type RequestSpec,
  segment,
  type SendOptions,
  UpstreamTransport,
} from './upstream.transport.js';
import type {
  Account,
  AccountAuthorisationRequest,
  ApiVersion,
  Application,
  ApplicationsQuery,
  AuthorisationResponse,
  Balances,
  Beneficiary,
  CategorisationCreated,
  CategorisationRequest,
  Consent,
  ConsentDeleteResult,
  ConsentsQuery,
  ConstraintsQuery,
  EmbeddedAccountAuthorisationRequest,
  EmbeddedAuthorisationUpdate,
  EventSubscription,
  HostedVrpRequest,
  HostedVrpRequestCreate,
  HostedVrpRequestCreated,
  Institution,
  InstitutionConstraint,
  NewUser,
  Payment,
  PaymentAuthorisationRequest,
  PaymentDetails,
  PaymentRequest,
  RealTimeTransactionsQuery,
  RegisteredWebhook,
  RegisterWebhookRequest,
  ResetWebhookSecretRequest,
  Statement,
  StatementsQuery,
  SweepingVrpConsent,
  SweepingVrpConsentRequest,
  Transaction,
  TransactionsQuery,
  UpstreamPage,
  UpstreamResult,
  User,
  UserDeleteResult,
  UserPatchOperation,
  VrpFundsConfirmation,
  VrpFundsConfirmationRequest,
  VrpPayment,
  VrpPaymentRequest,
  Webhook,
  WebhookCategory,
} from './upstream.types.js';
import { cursorPages, offsetPages, type PagingOptions } from './upstream-paging.iterator.js';
import { DEFAULT_RETRY, type RetryMode, type RetryOptions } from './upstream-resilience.policy.js';

export interface UpstreamClientOptions {
  baseUrl: string;
  applicationId: string;
  applicationSecret: string;
  /** `2.0-ALPHA` sends `x-yapily-api-version: 2.0-ALPHA` on every request (upstream spec §9). */
  apiVersion: ApiVersion;
  /**
   * Per attempt, from when the request is sent on a connection: send, headers and the whole body. Waiting
   * for a pooled connection has its own timeout of the same length, which counts against no breaker.
   */
  timeoutMs: number;
  /** Default budget for a whole call, retries included (see `CallOptions.deadlineMs`); none when absent. */
  deadlineMs?: number;
  /** Largest bodies read; a larger one fails with PROTOCOL (default 32 MB for 2xx, 64 KB for errors). */
  bodyLimits?: Partial<BodyLimits>;
  logger?: AppLogger;
  /** Per-operation latency and outcome metrics are registered here. */
  registry?: Registry;
  retry?: Partial<RetryOptions>;
  /** `false` turns the circuit breakers (per institution and service-wide) off. */
  breaker?: Partial<BreakerOptions> | false;
  /** Keep-alive connections to the upstream (default 32). */
  connections?: number;
  /** How long an idle connection is kept (default 30 s; the server's keep-alive hint wins if shorter). */
  keepAliveTimeoutMs?: number;
}

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

function consentsQuery(q: ConsentsQuery, offset = q.offset, limit = q.limit) {
  return {
    'filter[applicationUserId]': q.applicationUserId,
    'filter[userUuid]': q.userUuid,
    'filter[institution]': q.institution,
    'filter[status]': q.status,
    from: q.from,
    before: q.before,
    limit,
    offset,
  };
}

function asPage<T>(result: UpstreamResult<T[]>, operation: string): UpstreamPage<T> {
  if (!Array.isArray(result.data)) {
    throw new UpstreamError(`${operation}: a list route answered data that is not an array`, {
      kind: 'PROTOCOL',
      shape: 'unrecognised',
      retryable: false,
      status: result.status,
      tracingId: result.tracingId,
      requestId: result.requestId,
      operation,
    });
  }
  const total = result.meta.pagination?.totalCount;
  return typeof total === 'number' ? { ...result, totalCount: total } : result;
}

/**
 * The typed client for every upstream operation the BFF uses. Each method returns the unwrapped
 * `data` with `tracingId` and `requestId`, or throws {@link UpstreamError}. Paged lists come as async
 * iterators of pages (`…Pages`) next to the single-page calls.
 */
export class UpstreamClient {
  private readonly transport: UpstreamTransport;

  constructor(options: UpstreamClientOptions) {
    if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
      throw new RangeError('timeoutMs must be a positive number');
    }
    this.transport = new UpstreamTransport({
      baseUrl: options.baseUrl,
      applicationId: options.applicationId,
      applicationSecret: options.applicationSecret,
      apiVersion: options.apiVersion,
      timeoutMs: options.timeoutMs,
      deadlineMs: options.deadlineMs,
      bodyLimits: { ...DEFAULT_BODY_LIMITS, ...options.bodyLimits },
      connections: options.connections ?? 32,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 30_000,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      breaker: options.breaker === false ? false : { ...DEFAULT_BREAKER, ...options.breaker },
      logger: options.logger,
      metrics: options.registry ? new UpstreamMetrics(options.registry) : undefined,
    });
  }

  /**
   * The state of an institution's circuit breaker, or of the service-wide one for `upstream` (for
   * health pages and tests). An institution without a breaker (none failed lately) is `closed`.
   */
  breakerState(institutionId: string): 'closed' | 'open' | 'halfOpen' {
    return this.transport.breakerState(institutionId);
  }

  /**
   * Institution ids that may label this client's metrics, as ids an institutions listing gave do: those
   * of the institutions cache, which a process that never lists institutions itself reads (else every
   * bank's breaker shows as `other`).
   */
  rememberInstitutions(ids: readonly string[]): void {
    this.transport.rememberInstitutions(ids);
  }

  /** Closes the connection pool; in-flight calls finish first. */
  close(): Promise<void> {
    return this.transport.close();
  }

  private send<T>(
    spec: Omit<RequestSpec, 'retry'> & { retry?: RequestSpec['retry'] },
    options?: SendOptions,
  ) {
    return this.transport.send<T>(
      { ...spec, retry: spec.retry ?? retryFor(spec.operation, spec.body) },
      options,
    );
  }

  /** Paging options with one base request id for the whole walk (pages add `.p<n>`). */
  private walkOptions<O extends CallOptions>(options: O): O {
    return { ...options, requestId: options.requestId ?? currentRequestId() ?? randomUUID() };
  }

  // ---- 4.1 authorisations -------------------------------------------------------------------------

  /** POST /account-auth-requests (initiateAccountRequest). Not retried: each call starts a new consent. */
  createAccountAuthorisation(body: AccountAuthorisationRequest, options?: CallOptions) {
    return this.send<AuthorisationResponse>(
      {
        operation: 'initiateAccountRequest',
        consent: 'none',
        method: 'POST',
        path: '/account-auth-requests',
        body,
        institutionId: body.institutionId,
      },
      options,
    );
  }

  /** PATCH /account-auth-requests (reAuthoriseAccount): a new authorisation URL for the same consent. */
  reauthoriseAccount(options: ConsentCallOptions) {
    return this.send<AuthorisationResponse>(
      {
        operation: 'reAuthoriseAccount',
        consent: 'required',
        method: 'PATCH',
        path: '/account-auth-requests',
      },
      options,
    );
  }

  /** PUT /account-auth-requests (updatePreAuthoriseAccountConsent). */
  updatePreAuthorisation(body: AccountAuthorisationRequest, options: ConsentCallOptions) {
    return this.send<AuthorisationResponse>(
      {
        operation: 'updatePreAuthoriseAccountConsent',
        consent: 'required',
        method: 'PUT',
        path: '/account-auth-requests',
        body,
        institutionId: body.institutionId,
      },
      options,
    );
  }

  /** POST /embedded-account-auth-requests: step one of the embedded flow (credentials). */
  createEmbeddedAccountAuthorisation(body: EmbeddedAccountAuthorisationRequest, options?: CallOptions) {
    return this.send<AuthorisationResponse>(
      {
        operation: 'initiateEmbeddedAccountRequest',
        consent: 'none',
        method: 'POST',
        path: '/embedded-account-auth-requests',
        body,
        institutionId: body.institutionId,
      },
      options,
    );
  }

  /**
   * PUT /embedded-account-auth-requests/{consentId}: the chosen SCA method, then the SCA code. Not
   * retried although it is a PUT: a code is single-use and three wrong ones fail the consent.
   */
  updateEmbeddedAccountAuthorisation(
    consentId: string,
    body: EmbeddedAuthorisationUpdate,
    options?: CallOptions,
  ) {
    return this.send<AuthorisationResponse>(
      {
        operation: 'updateEmbeddedAccountRequest',
        consent: 'none',
        method: 'PUT',
        path: `/embedded-account-auth-requests/${segment(consentId)}`,
        body,
        institutionId: body.institutionId,
      },
      options,
    );
  }

  // ---- consents (4.8 and the full API) -------------------------------------------------------------

  /** GET /consents, one page. Without a user filter the upstream returns at most 1000. */
  listConsents(query: ConsentsQuery = {}, options?: CallOptions) {
    return this.consentsPage(query, options);
  }

  private consentsPage(query: ConsentsQuery, options?: SendOptions) {
    return this.send<Consent[]>(
      {
        operation: 'getConsents',
        consent: 'none',
        method: 'GET',
        path: '/consents',
        query: consentsQuery(query),
      },
      options,
    ).then((page) => asPage(page, 'getConsents'));
  }

  /** GET /consents, every page (offset paging). */
  consentPages(query: ConsentsQuery = {}, options: CallOptions & PagingOptions = {}) {
    const walk = this.walkOptions(options);
    return offsetPages(
      'getConsents',
      (offset, limit, page) => this.consentsPage({ ...query, offset, limit }, { ...walk, page }),
      query,
      options,
    );
  }

  /** GET /consents/{consentId}. */
  getConsent(consentId: string, options?: CallOptions) {
    return this.send<Consent>(
      {
        operation: 'getConsentById',
        consent: 'none',
        method: 'GET',
        path: `/consents/${segment(consentId)}`,
      },
      options,
    );
  }

  /** DELETE /consents/{consentId}: revokes the consent upstream. */
  deleteConsent(consentId: string, options?: CallOptions & { forceDelete?: boolean }) {
    return this.send<ConsentDeleteResult>(
      {
        operation: 'deleteConsent',
        consent: 'none',
        method: 'DELETE',
        path: `/consents/${segment(consentId)}`,
        goneOnRetry: { id: consentId, deleteStatus: 'SUCCESS' } satisfies ConsentDeleteResult,
        query: { forceDelete: options?.forceDelete },
      },
      options,
    );
  }

  /** POST /consents/{consentId}/extend: records that the user re-confirmed access. */
  extendConsent(consentId: string, body: { lastConfirmedAt: string }, options?: CallOptions) {
    return this.send<Consent>(
      {
        operation: 'extendConsent',
        consent: 'none',
        method: 'POST',
        path: `/consents/${segment(consentId)}/extend`,
        body,
      },
      options,
    );
  }

  /** POST /consent-one-time-token: the consent (with its token) for a callback's one-time token. Single use. */
  exchangeOneTimeToken(oneTimeToken: string, options?: CallOptions) {
    return this.send<Consent>(
      {
        operation: 'getConsentBySingleAccessConsent',
        consent: 'none',
        method: 'POST',
        path: '/consent-one-time-token',
        body: { oneTimeToken },
        contentType: 'application/json',
        envelope: 'bare',
      },
      options,
    );
  }

  // ---- 4.2 financial data ---------------------------------------------------------------------------

  /** GET /accounts (getAccounts). */
  getAccounts(options: ConsentCallOptions) {
    return this.send<Account[]>(
      { operation: 'getAccounts', consent: 'required', method: 'GET', path: '/accounts' },
      options,
    );
  }

  /** GET /accounts/{accountId} (getAccount). */
  getAccount(accountId: string, options: ConsentCallOptions) {
    return this.send<Account>(
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
    return this.send<Balances>(
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
    return this.send<Transaction[]>(
      {
        operation: 'getTransactions',
        consent: 'required',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/transactions`,
        query: offsetQuery(query),
      },
      options,
    ).then((page) => asPage(page, 'getTransactions'));
  }

  /** Every transactions page from `query.offset` (default 0), by the spec's offset rules. */
  transactionPages(accountId: string, query: TransactionsQuery, options: ConsentCallOptions & PagingOptions) {
    const walk = this.walkOptions(options);
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
    return this.send<Transaction[]>(this.realTimeSpec(accountId, query), options).then((page) =>
      asPage(page, 'getRealTimeTransactions'),
    );
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
    const walk = this.walkOptions(options);
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
    return this.send<Statement[]>(
      {
        operation: 'getStatements',
        consent: 'required',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/statements`,
        query: offsetQuery(query),
      },
      options,
    ).then((page) => asPage(page, 'getStatements'));
  }

  /** Every statements page (offset paging, same rules as transactions). */
  statementPages(accountId: string, query: StatementsQuery, options: ConsentCallOptions & PagingOptions) {
    const walk = this.walkOptions(options);
    return offsetPages(
      'getStatements',
      (offset, limit, page) => this.statementsPage(accountId, { ...query, offset, limit }, { ...walk, page }),
      query,
      options,
    );
  }

  /** GET /accounts/{accountId}/statements/{statementId}. */
  getStatement(accountId: string, statementId: string, options: ConsentCallOptions) {
    return this.send<Statement>(
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
    return this.send<Beneficiary[]>(
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
    return this.send<CategorisationCreated>(
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
    return this.send<{ transactions: Transaction[] }>(
      {
        operation: 'getCategorisedTransactions',
        consent: 'required',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/transactions/categorisation/${segment(categorisationId)}`,
      },
      options,
    );
  }

  // ---- payments -------------------------------------------------------------------------------------

  /** POST /payment-auth-requests: a single-use payment consent awaiting the user. */
  createPaymentAuthorisation(body: PaymentAuthorisationRequest, options?: CallOptions) {
    return this.send<AuthorisationResponse>(
      {
        operation: 'createPaymentAuthorisation',
        consent: 'none',
        method: 'POST',
        path: '/payment-auth-requests',
        body,
        institutionId: body.institutionId,
      },
      options,
    );
  }

  /** POST /payments. Retried like a safe request: `paymentIdempotencyId` makes a repeat harmless. */
  createPayment(body: PaymentRequest, options: ConsentCallOptions) {
    return this.send<Payment>(
      { operation: 'createPayment', consent: 'required', method: 'POST', path: '/payments', body },
      options,
    );
  }

  /** GET /payments/{paymentId}/details. */
  getPaymentDetails(paymentId: string, options: ConsentCallOptions) {
    return this.send<PaymentDetails>(
      {
        operation: 'getPayments',
        consent: 'required',
        method: 'GET',
        path: `/payments/${segment(paymentId)}/details`,
      },
      options,
    );
  }

  // ---- 4.3 variable recurring payments --------------------------------------------------------------

  /** POST /variable-recurring-payments/sweeping/consents. */
  createSweepingVrpConsent(body: SweepingVrpConsentRequest, options?: CallOptions) {
    return this.send<SweepingVrpConsent>(
      {
        operation: 'createSweepingAuthorisation',
        consent: 'none',
        method: 'POST',
        path: '/variable-recurring-payments/sweeping/consents',
        body,
        institutionId: body.institutionId,
      },
      options,
    );
  }

  /** GET /variable-recurring-payments/sweeping/consents/{consentId}. */
  getSweepingVrpConsent(consentId: string, options?: CallOptions) {
    return this.send<SweepingVrpConsent>(
      {
        operation: 'getSweepingConsentById',
        consent: 'none',
        method: 'GET',
        path: `/variable-recurring-payments/sweeping/consents/${segment(consentId)}`,
      },
      options,
    );
  }

  /** GET /variable-recurring-payments/commercial/consents/{consentId}. */
  getCommercialVrpConsent(consentId: string, options?: CallOptions) {
    return this.send<SweepingVrpConsent>(
      {
        operation: 'getCommercialVrpConsentById',
        consent: 'none',
        method: 'GET',
        path: `/variable-recurring-payments/commercial/consents/${segment(consentId)}`,
      },
      options,
    );
  }

  /** POST /variable-recurring-payments/funds-confirmation. */
  confirmVrpFunds(body: VrpFundsConfirmationRequest, options: ConsentCallOptions) {
    return this.send<VrpFundsConfirmation>(
      {
        operation: 'createVrpFundsConfirmation',
        consent: 'required',
        method: 'POST',
        path: '/variable-recurring-payments/funds-confirmation',
        body,
      },
      options,
    );
  }

  /** POST /variable-recurring-payments/payments. Retried thanks to `paymentIdempotencyId`. */
  createVrpPayment(body: VrpPaymentRequest, options: ConsentCallOptions) {
    return this.send<VrpPayment>(
      {
        operation: 'createVrpPayment',
        consent: 'required',
        method: 'POST',
        path: '/variable-recurring-payments/payments',
        body,
      },
      options,
    );
  }

  /** GET /variable-recurring-payments/payments/{paymentId}/details. */
  getVrpPaymentDetails(paymentId: string, options: ConsentCallOptions) {
    return this.send<VrpPayment>(
      {
        operation: 'getVrpPaymentDetails',
        consent: 'required',
        method: 'GET',
        path: `/variable-recurring-payments/payments/${segment(paymentId)}/details`,
      },
      options,
    );
  }

  // ---- 4.4 users ------------------------------------------------------------------------------------

  /** POST /users (answers the bare user). Not retried: a repeat would conflict (409). */
  createUser(body: NewUser, options?: CallOptions) {
    return this.send<User>(
      { operation: 'addUser', consent: 'none', method: 'POST', path: '/users', body, envelope: 'bare' },
      options,
    );
  }

  /** GET /users, optionally filtered by `applicationUserId` (answers a bare array). */
  listUsers(query: { applicationUserId?: string | string[] } = {}, options?: CallOptions) {
    return this.send<User[]>(
      {
        operation: 'getUsers',
        consent: 'none',
        method: 'GET',
        path: '/users',
        query: { 'filter[applicationUserId]': query.applicationUserId },
        envelope: 'bare',
      },
      options,
    );
  }

  /** GET /users/{userUuid} (answers the bare user). */
  getUser(userUuid: string, options?: CallOptions) {
    return this.send<User>(
      {
        operation: 'getUser',
        consent: 'none',
        method: 'GET',
        path: `/users/${segment(userUuid)}`,
        envelope: 'bare',
      },
      options,
    );
  }

  /** PATCH /users/{userUuid} (JSON Patch). Retried only when every operation is `replace`. */
  updateUser(userUuid: string, operations: UserPatchOperation[], options?: CallOptions) {
    return this.send<User>(
      {
        operation: 'patchUser',
        consent: 'none',
        method: 'PATCH',
        path: `/users/${segment(userUuid)}`,
        body: operations,
        contentType: 'application/json-patch+json',
        envelope: 'bare',
      },
      options,
    );
  }

  /** DELETE /users/{userUuid}: deletes the user and revokes their consents. */
  deleteUser(userUuid: string, options?: CallOptions) {
    return this.send<UserDeleteResult>(
      {
        operation: 'deleteUser',
        consent: 'none',
        method: 'DELETE',
        path: `/users/${segment(userUuid)}`,
        goneOnRetry: { id: userUuid, deleteStatus: 'SUCCESS' } satisfies UserDeleteResult,
      },
      options,
    );
  }

  // ---- 4.5 applications -----------------------------------------------------------------------------

  /** GET /applications: the root's sub-applications, one page (empty for sub-application credentials). */
  listApplications(query: ApplicationsQuery = {}, options?: CallOptions) {
    return this.send<Application[]>(
      {
        operation: 'searchApplications',
        consent: 'none',
        method: 'GET',
        path: '/applications',
        query: { ...query },
      },
      options,
    ).then((page) => asPage(page, 'searchApplications'));
  }

  /** GET /applications/{applicationId}. */
  getApplication(applicationId: string, options?: CallOptions) {
    return this.send<Application>(
      {
        operation: 'getApplicationById',
        consent: 'none',
        method: 'GET',
        path: `/applications/${segment(applicationId)}`,
      },
      options,
    );
  }

  // ---- institutions ---------------------------------------------------------------------------------

  /** GET /institutions. */
  listInstitutions(options?: CallOptions) {
    return this.send<Institution[]>(
      { operation: 'getInstitutions', consent: 'none', method: 'GET', path: '/institutions' },
      options,
    ).then((result) => {
      // Ids the upstream itself listed may label breaker metrics; caller-chosen ones may not.
      if (Array.isArray(result.data)) this.transport.rememberInstitutions(result.data.map((i) => i.id));
      return result;
    });
  }

  /**
   * GET /institutions/constraints/data or /payments: what the institutions require of each endpoint
   * (the PSU headers among it). Ids comma-separated, all of the one country.
   */
  getInstitutionConstraints(kind: 'data' | 'payments', query: ConstraintsQuery, options?: CallOptions) {
    return this.send<InstitutionConstraint[]>(
      {
        operation:
          kind === 'data'
            ? 'getAccountConstraintsRulesByInstitution'
            : 'getPaymentConstraintsRulesByInstitution',
        consent: 'none',
        method: 'GET',
        path: `/institutions/constraints/${kind}`,
        query: {
          institutionIds: query.institutionIds.join(','),
          institutionCountryCode: query.institutionCountryCode,
          paymentType: query.paymentType,
          endpointPath: query.endpointPath,
          endpointMethod: query.endpointMethod,
        },
      },
      options,
    );
  }

  /** GET /institutions/{institutionId} (answers the bare institution). */
  getInstitution(institutionId: string, options?: CallOptions) {
    return this.send<Institution>(
      {
        operation: 'getInstitution',
        consent: 'none',
        method: 'GET',
        path: `/institutions/${segment(institutionId)}`,
        envelope: 'bare',
      },
      options,
    );
  }

  // ---- 4.6 hosted pages -----------------------------------------------------------------------------

  /** POST /hosted/vrp-requests/commercial (its shape from the upstream's OpenAPI: the spec shows none). */
  createCommercialVrpRequest(body: HostedVrpRequestCreate, options?: CallOptions) {
    return this.send<HostedVrpRequestCreated>(
      {
        operation: 'postHostedCommercialVrpRequest',
        consent: 'none',
        method: 'POST',
        path: '/hosted/vrp-requests/commercial',
        body,
      },
      options,
    );
  }

  /** GET /hosted/vrp-requests/commercial/{requestId}. */
  getCommercialVrpRequest(requestId: string, options?: CallOptions) {
    return this.send<HostedVrpRequest>(
      {
        operation: 'getHostedVrpRequest',
        consent: 'none',
        method: 'GET',
        path: `/hosted/vrp-requests/commercial/${segment(requestId)}`,
      },
      options,
    );
  }

  // ---- 4.7 notifications (deprecated) and webhooks --------------------------------------------------

  /** GET /notifications/event-subscriptions. */
  listEventSubscriptions(options?: CallOptions) {
    return this.send<EventSubscription[]>(
      {
        operation: 'getEventSubscriptions',
        consent: 'none',
        method: 'GET',
        path: '/notifications/event-subscriptions',
      },
      options,
    );
  }

  /** DELETE /notifications/event-subscriptions/{eventTypeId}. */
  deleteEventSubscription(eventTypeId: string, options?: CallOptions) {
    return this.send<EventSubscription & { deleteStatus?: string }>(
      {
        operation: 'deleteEventSubscriptionById',
        consent: 'none',
        method: 'DELETE',
        path: `/notifications/event-subscriptions/${segment(eventTypeId)}`,
        goneOnRetry: { eventTypeId, deleteStatus: 'SUCCESS' },
      },
      options,
    );
  }

  /** GET /webhook/events/categories (the answer's meta member is called `metadata`). */
  getWebhookCategories(options?: CallOptions) {
    return this.send<{ categories: WebhookCategory[] }>(
      {
        operation: 'getWebhookCategories',
        consent: 'none',
        method: 'GET',
        path: '/webhook/events/categories',
      },
      options,
    );
  }

  /** POST /webhook/events. The answer's `webhookSecret` is shown once: store it before anything else. */
  registerWebhook(body: RegisterWebhookRequest, options?: CallOptions) {
    return this.send<RegisteredWebhook>(
      { operation: 'registerWebhook', consent: 'none', method: 'POST', path: '/webhook/events', body },
      options,
    );
  }

  /** GET /webhook/events: the registered webhooks. */
  listWebhooks(options?: CallOptions) {
    return this.send<{ active: Webhook[] }>(
      { operation: 'getRegisteredWebhooks', consent: 'none', method: 'GET', path: '/webhook/events' },
      options,
    );
  }

  /**
   * POST /webhook/secrets/{webhookId}: a new `webhookSecret`, shown once like the first. The old secret
   * keeps signing deliveries beside the new one for `delay` seconds.
   */
  resetWebhookSecret(webhookId: string, body: ResetWebhookSecretRequest, options?: CallOptions) {
    return this.send<RegisteredWebhook>(
      {
        operation: 'resetWebhookSecret',
        consent: 'none',
        method: 'POST',
        path: `/webhook/secrets/${segment(webhookId)}`,
        body,
      },
      options,
    );
  }

  /** DELETE /webhook/events/{webhookId}. */
  deleteWebhook(webhookId: string, options?: CallOptions) {
    return this.send<Webhook>(
      {
        operation: 'deleteWebhook',
        consent: 'none',
        method: 'DELETE',
        path: `/webhook/events/${segment(webhookId)}`,
        goneOnRetry: { id: webhookId },
      },
      options,
    );
  }
}

/**
 * How each operation may be retried: the one place this is decided (the README lists it).
 * - `safe`: any retryable failure (5xx, 408, 429, retryable 424, network, timeout) is retried.
 * - `unsent`: retried only when the request provably never left (connection refused, or still queued
 *   locally when its time ran out); a timeout or a 5xx might mean it ran, and a repeat would run it twice.
 * - `never`: not even then.
 * - `idempotencyId`: `safe` when the body carries a `paymentIdempotencyId` (the upstream then answers a
 *   repeat with the first payment), else `unsent`.
 * - `replaceOnly`: `safe` when every JSON-patch op is `replace` (sets a fixed value), else `unsent`
 *   (`add` to an array, `remove` or `move` do not repeat harmlessly).
 */
export const RETRY_RULES = {
  initiateAccountRequest: 'unsent', // each call starts a new consent
  reAuthoriseAccount: 'unsent', // each call issues a new authorisation URL
  updatePreAuthoriseAccountConsent: 'safe', // PUT
  initiateEmbeddedAccountRequest: 'unsent',
  // A PUT, but a repeat is not harmless: SCA codes are single-use and three wrong ones fail the consent.
  updateEmbeddedAccountRequest: 'never',
  getConsents: 'safe',
  getConsentById: 'safe',
  deleteConsent: 'safe', // a 404 on a retry counts as done
  // POSTs: the spec promises no idempotency (extending twice, or a second funds check the bank records,
  // is not promised to be harmless), so they follow the POST rule.
  extendConsent: 'unsent',
  getConsentBySingleAccessConsent: 'unsent', // one-time token: single use
  getAccounts: 'safe',
  getAccount: 'safe',
  getAccountBalances: 'safe',
  getTransactions: 'safe',
  getRealTimeTransactions: 'safe',
  getStatements: 'safe',
  getStatement: 'safe',
  getBeneficiaries: 'safe',
  createTransactionsCategorisation: 'unsent',
  getCategorisedTransactions: 'safe',
  createPaymentAuthorisation: 'unsent',
  createPayment: 'idempotencyId',
  getPayments: 'safe',
  createSweepingAuthorisation: 'unsent',
  getSweepingConsentById: 'safe',
  createVrpFundsConfirmation: 'unsent',
  createVrpPayment: 'idempotencyId',
  getVrpPaymentDetails: 'safe',
  addUser: 'unsent', // a repeat would conflict (409)
  getUsers: 'safe',
  getUser: 'safe',
  patchUser: 'replaceOnly',
  deleteUser: 'safe', // a 404 on a retry counts as done
  searchApplications: 'safe',
  getApplicationById: 'safe',
  getInstitutions: 'safe',
  getInstitution: 'safe',
  getAccountConstraintsRulesByInstitution: 'safe',
  getPaymentConstraintsRulesByInstitution: 'safe',
  postHostedCommercialVrpRequest: 'unsent', // each call creates another request
  getHostedVrpRequest: 'safe',
  getCommercialVrpConsentById: 'safe',
  getEventSubscriptions: 'safe',
  deleteEventSubscriptionById: 'safe', // a 404 on a retry counts as done
  getWebhookCategories: 'safe',
  registerWebhook: 'unsent', // each call registers another webhook
  getRegisteredWebhooks: 'safe',
  resetWebhookSecret: 'unsent', // each call issues another secret, and only the last one's answer shows it
  deleteWebhook: 'safe', // a 404 on a retry counts as done
} as const satisfies Record<string, RetryMode | 'never' | 'idempotencyId' | 'replaceOnly'>;

function retryFor(operation: string, body: unknown): RequestSpec['retry'] {
  const rule = (RETRY_RULES as Record<string, (typeof RETRY_RULES)[keyof typeof RETRY_RULES]>)[operation];
  if (rule === undefined) throw new Error(`no retry rule for upstream operation ${operation}`);
  if (rule === 'idempotencyId') {
    const id = (body as { paymentIdempotencyId?: unknown } | undefined)?.paymentIdempotencyId;
    return typeof id === 'string' && id !== '' ? 'safe' : 'unsent';
  }
  if (rule === 'replaceOnly') {
    const ops = Array.isArray(body) ? (body as { op?: unknown }[]) : [];
    return ops.length > 0 && ops.every((o) => o.op === 'replace') ? 'safe' : 'unsent';
  }
  return rule;
}
