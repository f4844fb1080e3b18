import type { Registry } from 'prom-client';
import type { AppLogger } from '#libs/observability';
import { UpstreamMetrics } from './upstream.metrics.js';
import { cursorPages, offsetPages, type PagingOptions } from './upstream-paging.iterator.js';
import {
  DEFAULT_BREAKER,
  DEFAULT_RETRY,
  type BreakerOptions,
  type RetryOptions,
} from './upstream-resilience.policy.js';
import {
  segment,
  UpstreamTransport,
  type CallOptions,
  type ConsentCallOptions,
  type RequestSpec,
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
  EmbeddedAccountAuthorisationRequest,
  EmbeddedAuthorisationUpdate,
  EventSubscription,
  HostedVrpRequest,
  Institution,
  NewUser,
  Payment,
  PaymentAuthorisationRequest,
  PaymentDetails,
  PaymentRequest,
  RealTimeTransactionsQuery,
  RegisteredWebhook,
  RegisterWebhookRequest,
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

export interface UpstreamClientOptions {
  baseUrl: string;
  applicationId: string;
  applicationSecret: string;
  /** `2.0-ALPHA` sends `x-yapily-api-version: 2.0-ALPHA` on every request (spec part 9). */
  apiVersion: ApiVersion;
  /** Per attempt: connect, send, headers and the whole body. */
  timeoutMs: number;
  logger?: AppLogger;
  /** Per-operation latency and outcome metrics are registered here. */
  registry?: Registry;
  retry?: Partial<RetryOptions>;
  /** `false` turns the per-institution circuit breakers off. */
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

function asPage<T>(result: UpstreamResult<T[]>): UpstreamPage<T> {
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
      connections: options.connections ?? 32,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 30_000,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      breaker: options.breaker === false ? false : { ...DEFAULT_BREAKER, ...options.breaker },
      logger: options.logger,
      metrics: options.registry ? new UpstreamMetrics(options.registry) : undefined,
    });
  }

  /** The state of an institution's circuit breaker (for health pages and tests). */
  breakerState(institutionId: string): 'closed' | 'open' | 'halfOpen' {
    return this.transport.breakerState(institutionId);
  }

  /** Closes the connection pool; in-flight calls finish first. */
  close(): Promise<void> {
    return this.transport.close();
  }

  private send<T>(spec: RequestSpec, options?: CallOptions & { consent?: string }) {
    return this.transport.send<T>(spec, options);
  }

  // ---- 4.1 authorisations -------------------------------------------------------------------------

  /** POST /account-auth-requests (initiateAccountRequest). Not retried: each call starts a new consent. */
  createAccountAuthorisation(body: AccountAuthorisationRequest, options?: CallOptions) {
    return this.send<AuthorisationResponse>(
      {
        operation: 'initiateAccountRequest',
        method: 'POST',
        path: '/account-auth-requests',
        body,
        retry: 'unsent',
        institutionId: body.institutionId,
      },
      options,
    );
  }

  /** PATCH /account-auth-requests (reAuthoriseAccount): a new authorisation URL for the same consent. */
  reauthoriseAccount(options: ConsentCallOptions) {
    return this.send<AuthorisationResponse>(
      { operation: 'reAuthoriseAccount', method: 'PATCH', path: '/account-auth-requests', retry: 'unsent' },
      options,
    );
  }

  /** PUT /account-auth-requests (updatePreAuthoriseAccountConsent). */
  updatePreAuthorisation(body: AccountAuthorisationRequest, options: ConsentCallOptions) {
    return this.send<AuthorisationResponse>(
      {
        operation: 'updatePreAuthoriseAccountConsent',
        method: 'PUT',
        path: '/account-auth-requests',
        body,
        retry: 'safe',
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
        method: 'POST',
        path: '/embedded-account-auth-requests',
        body,
        retry: 'unsent',
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
        method: 'PUT',
        path: `/embedded-account-auth-requests/${segment(consentId)}`,
        body,
        retry: 'unsent',
        institutionId: body.institutionId,
      },
      options,
    );
  }

  // ---- consents (4.8 and the full API) -------------------------------------------------------------

  /** GET /consents, one page. Without a user filter the upstream returns at most 1000. */
  listConsents(query: ConsentsQuery = {}, options?: CallOptions) {
    return this.send<Consent[]>(
      {
        operation: 'getConsents',
        method: 'GET',
        path: '/consents',
        query: consentsQuery(query),
        retry: 'safe',
      },
      options,
    ).then(asPage);
  }

  /** GET /consents, every page (offset paging). */
  consentPages(query: ConsentsQuery = {}, options?: CallOptions & PagingOptions) {
    return offsetPages(
      'getConsents',
      (offset, limit) => this.listConsents({ ...query, offset, limit }, options),
      query,
      options,
    );
  }

  /** GET /consents/{consentId}. */
  getConsent(consentId: string, options?: CallOptions) {
    return this.send<Consent>(
      { operation: 'getConsentById', method: 'GET', path: `/consents/${segment(consentId)}`, retry: 'safe' },
      options,
    );
  }

  /** DELETE /consents/{consentId}: revokes the consent upstream. */
  deleteConsent(consentId: string, options?: CallOptions & { forceDelete?: boolean }) {
    return this.send<ConsentDeleteResult>(
      {
        operation: 'deleteConsent',
        method: 'DELETE',
        path: `/consents/${segment(consentId)}`,
        query: { forceDelete: options?.forceDelete },
        retry: 'safe',
      },
      options,
    );
  }

  /** POST /consents/{consentId}/extend: records that the user re-confirmed access (idempotent). */
  extendConsent(consentId: string, body: { lastConfirmedAt: string }, options?: CallOptions) {
    return this.send<Consent>(
      {
        operation: 'extendConsent',
        method: 'POST',
        path: `/consents/${segment(consentId)}/extend`,
        body,
        retry: 'safe',
      },
      options,
    );
  }

  /** POST /consent-one-time-token: the consent (with its token) for a callback's one-time token. Single use. */
  exchangeOneTimeToken(oneTimeToken: string, options?: CallOptions) {
    return this.send<Consent>(
      {
        operation: 'getConsentBySingleAccessConsent',
        method: 'POST',
        path: '/consent-one-time-token',
        body: { oneTimeToken },
        contentType: 'application/json',
        envelope: 'bare',
        retry: 'unsent',
      },
      options,
    );
  }

  // ---- 4.2 financial data ---------------------------------------------------------------------------

  /** GET /accounts (getAccounts). */
  getAccounts(options: ConsentCallOptions) {
    return this.send<Account[]>(
      { operation: 'getAccounts', method: 'GET', path: '/accounts', retry: 'safe' },
      options,
    );
  }

  /** GET /accounts/{accountId} (getAccount). */
  getAccount(accountId: string, options: ConsentCallOptions) {
    return this.send<Account>(
      { operation: 'getAccount', method: 'GET', path: `/accounts/${segment(accountId)}`, retry: 'safe' },
      options,
    );
  }

  /** GET /accounts/{accountId}/balances. */
  getAccountBalances(accountId: string, options: ConsentCallOptions) {
    return this.send<Balances>(
      {
        operation: 'getAccountBalances',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/balances`,
        retry: 'safe',
      },
      options,
    );
  }

  /** GET /accounts/{accountId}/transactions, one page (offset paging, spec 4.2.1). */
  getTransactions(accountId: string, query: TransactionsQuery, options: ConsentCallOptions) {
    return this.send<Transaction[]>(
      {
        operation: 'getTransactions',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/transactions`,
        query: offsetQuery(query),
        retry: 'safe',
      },
      options,
    ).then(asPage);
  }

  /** Every transactions page from `query.offset` (default 0), by the spec's offset rules. */
  transactionPages(accountId: string, query: TransactionsQuery, options: ConsentCallOptions & PagingOptions) {
    return offsetPages(
      'getTransactions',
      (offset, limit) => this.getTransactions(accountId, { ...query, offset, limit }, options),
      query,
      options,
    );
  }

  /** GET /accounts/{accountId}/real-time/transactions, one page (cursor paging, private beta). */
  getRealTimeTransactions(accountId: string, query: CursorPagingQuery, options: ConsentCallOptions) {
    const q =
      query.cursor === undefined ? { from: query.from, before: query.before } : { cursor: query.cursor };
    return this.send<Transaction[]>(
      {
        operation: 'getRealTimeTransactions',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/real-time/transactions`,
        query: q,
        retry: 'safe',
      },
      options,
    ).then(asPage);
  }

  /** Every real-time transactions page, following `links.next` to the final page. */
  realTimeTransactionPages(
    accountId: string,
    query: RealTimeTransactionsQuery,
    options: ConsentCallOptions & PagingOptions,
  ) {
    return cursorPages(
      'getRealTimeTransactions',
      (cursor) => this.getRealTimeTransactions(accountId, cursor === undefined ? query : { cursor }, options),
      options,
    );
  }

  /** GET /accounts/{accountId}/statements, one page. */
  getStatements(accountId: string, query: StatementsQuery, options: ConsentCallOptions) {
    return this.send<Statement[]>(
      {
        operation: 'getStatements',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/statements`,
        query: offsetQuery(query),
        retry: 'safe',
      },
      options,
    ).then(asPage);
  }

  /** Every statements page (offset paging, same rules as transactions). */
  statementPages(accountId: string, query: StatementsQuery, options: ConsentCallOptions & PagingOptions) {
    return offsetPages(
      'getStatements',
      (offset, limit) => this.getStatements(accountId, { ...query, offset, limit }, options),
      query,
      options,
    );
  }

  /** GET /accounts/{accountId}/statements/{statementId}. */
  getStatement(accountId: string, statementId: string, options: ConsentCallOptions) {
    return this.send<Statement>(
      {
        operation: 'getStatement',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/statements/${segment(statementId)}`,
        retry: 'safe',
      },
      options,
    );
  }

  /** GET /accounts/{accountId}/beneficiaries (the answer carries `data` only, no `meta`). */
  getBeneficiaries(accountId: string, options: ConsentCallOptions) {
    return this.send<Beneficiary[]>(
      {
        operation: 'getBeneficiaries',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/beneficiaries`,
        retry: 'safe',
      },
      options,
    );
  }

  /** POST /accounts/{accountId}/transactions/categorisation (Data Plus). */
  createCategorisation(accountId: string, body: CategorisationRequest, options: ConsentCallOptions) {
    return this.send<CategorisationCreated>(
      {
        operation: 'createTransactionsCategorisation',
        method: 'POST',
        path: `/accounts/${segment(accountId)}/transactions/categorisation`,
        body,
        contentType: 'application/json',
        retry: 'unsent',
      },
      options,
    );
  }

  /** GET /accounts/{accountId}/transactions/categorisation/{categorisationId}. */
  getCategorisation(accountId: string, categorisationId: string, options: ConsentCallOptions) {
    return this.send<Transaction[]>(
      {
        operation: 'getCategorisedTransactions',
        method: 'GET',
        path: `/accounts/${segment(accountId)}/transactions/categorisation/${segment(categorisationId)}`,
        retry: 'safe',
      },
      options,
    ).then(asPage);
  }

  // ---- payments -------------------------------------------------------------------------------------

  /** POST /payment-auth-requests: a single-use payment consent awaiting the user. */
  createPaymentAuthorisation(body: PaymentAuthorisationRequest, options?: CallOptions) {
    return this.send<AuthorisationResponse>(
      {
        operation: 'createPaymentAuthorisation',
        method: 'POST',
        path: '/payment-auth-requests',
        body,
        retry: 'unsent',
        institutionId: body.institutionId,
      },
      options,
    );
  }

  /** POST /payments. Retried like a safe request: `paymentIdempotencyId` makes a repeat harmless. */
  createPayment(body: PaymentRequest, options: ConsentCallOptions) {
    return this.send<Payment>(
      { operation: 'createPayment', method: 'POST', path: '/payments', body, retry: idempotent(body) },
      options,
    );
  }

  /** GET /payments/{paymentId}/details. */
  getPaymentDetails(paymentId: string, options: ConsentCallOptions) {
    return this.send<PaymentDetails>(
      {
        operation: 'getPayments',
        method: 'GET',
        path: `/payments/${segment(paymentId)}/details`,
        retry: 'safe',
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
        method: 'POST',
        path: '/variable-recurring-payments/sweeping/consents',
        body,
        retry: 'unsent',
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
        method: 'GET',
        path: `/variable-recurring-payments/sweeping/consents/${segment(consentId)}`,
        retry: 'safe',
      },
      options,
    );
  }

  /** POST /variable-recurring-payments/funds-confirmation: a read, so safe to retry. */
  confirmVrpFunds(body: VrpFundsConfirmationRequest, options: ConsentCallOptions) {
    return this.send<VrpFundsConfirmation>(
      {
        operation: 'createVrpFundsConfirmation',
        method: 'POST',
        path: '/variable-recurring-payments/funds-confirmation',
        body,
        retry: 'safe',
      },
      options,
    );
  }

  /** POST /variable-recurring-payments/payments. Retried thanks to `paymentIdempotencyId`. */
  createVrpPayment(body: VrpPaymentRequest, options: ConsentCallOptions) {
    return this.send<VrpPayment>(
      {
        operation: 'createVrpPayment',
        method: 'POST',
        path: '/variable-recurring-payments/payments',
        body,
        retry: idempotent(body),
      },
      options,
    );
  }

  /** GET /variable-recurring-payments/payments/{paymentId}/details. */
  getVrpPaymentDetails(paymentId: string, options: ConsentCallOptions) {
    return this.send<VrpPayment>(
      {
        operation: 'getVrpPaymentDetails',
        method: 'GET',
        path: `/variable-recurring-payments/payments/${segment(paymentId)}/details`,
        retry: 'safe',
      },
      options,
    );
  }

  // ---- 4.4 users ------------------------------------------------------------------------------------

  /** POST /users (answers the bare user). Not retried: a repeat would conflict (409). */
  createUser(body: NewUser, options?: CallOptions) {
    return this.send<User>(
      { operation: 'addUser', method: 'POST', path: '/users', body, envelope: 'bare', retry: 'unsent' },
      options,
    );
  }

  /** GET /users, optionally filtered by `applicationUserId` (answers a bare array). */
  listUsers(query: { applicationUserId?: string | string[] } = {}, options?: CallOptions) {
    return this.send<User[]>(
      {
        operation: 'getUsers',
        method: 'GET',
        path: '/users',
        query: { 'filter[applicationUserId]': query.applicationUserId },
        envelope: 'bare',
        retry: 'safe',
      },
      options,
    );
  }

  /** GET /users/{userUuid} (answers the bare user). */
  getUser(userUuid: string, options?: CallOptions) {
    return this.send<User>(
      {
        operation: 'getUser',
        method: 'GET',
        path: `/users/${segment(userUuid)}`,
        envelope: 'bare',
        retry: 'safe',
      },
      options,
    );
  }

  /** PATCH /users/{userUuid} (JSON Patch). Retried: its operations set fixed values. */
  updateUser(userUuid: string, operations: UserPatchOperation[], options?: CallOptions) {
    return this.send<User>(
      {
        operation: 'patchUser',
        method: 'PATCH',
        path: `/users/${segment(userUuid)}`,
        body: operations,
        contentType: 'application/json-patch+json',
        envelope: 'bare',
        retry: 'safe',
      },
      options,
    );
  }

  /** DELETE /users/{userUuid}: deletes the user and revokes their consents. */
  deleteUser(userUuid: string, options?: CallOptions) {
    return this.send<UserDeleteResult>(
      { operation: 'deleteUser', method: 'DELETE', path: `/users/${segment(userUuid)}`, retry: 'safe' },
      options,
    );
  }

  // ---- 4.5 applications -----------------------------------------------------------------------------

  /** GET /applications: the root's sub-applications, one page (empty for sub-application credentials). */
  listApplications(query: ApplicationsQuery = {}, options?: CallOptions) {
    return this.send<Application[]>(
      {
        operation: 'searchApplications',
        method: 'GET',
        path: '/applications',
        query: { ...query },
        retry: 'safe',
      },
      options,
    ).then(asPage);
  }

  /** GET /applications/{applicationId}. */
  getApplication(applicationId: string, options?: CallOptions) {
    return this.send<Application>(
      {
        operation: 'getApplicationById',
        method: 'GET',
        path: `/applications/${segment(applicationId)}`,
        retry: 'safe',
      },
      options,
    );
  }

  // ---- institutions ---------------------------------------------------------------------------------

  /** GET /institutions. */
  listInstitutions(options?: CallOptions) {
    return this.send<Institution[]>(
      { operation: 'getInstitutions', method: 'GET', path: '/institutions', retry: 'safe' },
      options,
    );
  }

  /** GET /institutions/{institutionId} (answers the bare institution). */
  getInstitution(institutionId: string, options?: CallOptions) {
    return this.send<Institution>(
      {
        operation: 'getInstitution',
        method: 'GET',
        path: `/institutions/${segment(institutionId)}`,
        envelope: 'bare',
        retry: 'safe',
      },
      options,
    );
  }

  // ---- 4.6 hosted pages -----------------------------------------------------------------------------

  /** GET /hosted/vrp-requests/commercial/{requestId}. */
  getCommercialVrpRequest(requestId: string, options?: CallOptions) {
    return this.send<HostedVrpRequest>(
      {
        operation: 'getHostedVrpRequest',
        method: 'GET',
        path: `/hosted/vrp-requests/commercial/${segment(requestId)}`,
        retry: 'safe',
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
        method: 'GET',
        path: '/notifications/event-subscriptions',
        retry: 'safe',
      },
      options,
    );
  }

  /** DELETE /notifications/event-subscriptions/{eventTypeId}. */
  deleteEventSubscription(eventTypeId: string, options?: CallOptions) {
    return this.send<EventSubscription & { deleteStatus?: string }>(
      {
        operation: 'deleteEventSubscriptionById',
        method: 'DELETE',
        path: `/notifications/event-subscriptions/${segment(eventTypeId)}`,
        retry: 'safe',
      },
      options,
    );
  }

  /** GET /webhook/events/categories (the answer's meta member is called `metadata`). */
  getWebhookCategories(options?: CallOptions) {
    return this.send<{ categories: WebhookCategory[] }>(
      { operation: 'getWebhookCategories', method: 'GET', path: '/webhook/events/categories', retry: 'safe' },
      options,
    );
  }

  /** POST /webhook/events. The answer's `webhookSecret` is shown once: store it before anything else. */
  registerWebhook(body: RegisterWebhookRequest, options?: CallOptions) {
    return this.send<RegisteredWebhook>(
      { operation: 'registerWebhook', method: 'POST', path: '/webhook/events', body, retry: 'unsent' },
      options,
    );
  }

  /** GET /webhook/events: the registered webhooks. */
  listWebhooks(options?: CallOptions) {
    return this.send<{ active: Webhook[] }>(
      { operation: 'getRegisteredWebhooks', method: 'GET', path: '/webhook/events', retry: 'safe' },
      options,
    );
  }

  /** DELETE /webhook/events/{webhookId}. */
  deleteWebhook(webhookId: string, options?: CallOptions) {
    return this.send<Webhook>(
      {
        operation: 'deleteWebhook',
        method: 'DELETE',
        path: `/webhook/events/${segment(webhookId)}`,
        retry: 'safe',
      },
      options,
    );
  }
}

/** A payment carries its idempotency id, which is what makes a retried POST safe; without one, never. */
function idempotent(body: { paymentIdempotencyId?: string }): 'safe' | 'unsent' {
  return typeof body.paymentIdempotencyId === 'string' && body.paymentIdempotencyId !== ''
    ? 'safe'
    : 'unsent';
}
