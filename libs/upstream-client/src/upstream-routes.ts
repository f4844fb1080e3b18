import type { DocumentedRoute, UpstreamOperationName } from '#libs/upstream-openapi';
import { type RequestSpec, segment } from './upstream-request.js';

/** Where an operation is sent and how its exchange looks: facts of the upstream's interface, not of a call. */
export interface UpstreamRoute {
  method: RequestSpec['method'];
  /** `{name}` stands for an id the call gives, encoded as one path segment when the call is made. */
  path: string;
  consent: RequestSpec['consent'];
  contentType?: string;
  envelope?: 'bare';
}

/**
 * Every operation's route, in one table beside RETRY_RULES, so that an operation group's method says only
 * what its call adds (ids, query, body). Grouped as the client's namespaces are. Each row's method and
 * path compile only as the upstream's document gives them (DocumentedRoute).
 */
export const UPSTREAM_ROUTES = {
  // upstream.consents
  initiateAccountRequest: { method: 'POST', path: '/account-auth-requests', consent: 'none' },
  reAuthoriseAccount: { method: 'PATCH', path: '/account-auth-requests', consent: 'required' },
  updatePreAuthoriseAccountConsent: { method: 'PUT', path: '/account-auth-requests', consent: 'required' },
  initiateEmbeddedAccountRequest: {
    method: 'POST',
    path: '/embedded-account-auth-requests',
    consent: 'none',
  },
  updateEmbeddedAccountRequest: {
    method: 'PUT',
    path: '/embedded-account-auth-requests/{consentId}',
    consent: 'none',
  },
  getConsents: { method: 'GET', path: '/consents', consent: 'none' },
  getConsentById: { method: 'GET', path: '/consents/{consentId}', consent: 'none' },
  deleteConsent: { method: 'DELETE', path: '/consents/{consentId}', consent: 'none' },
  extendConsent: { method: 'POST', path: '/consents/{consentId}/extend', consent: 'none' },
  getConsentBySingleAccessConsent: {
    method: 'POST',
    path: '/consent-one-time-token',
    consent: 'none',
    contentType: 'application/json',
    envelope: 'bare',
  },
  // upstream.data
  getAccounts: { method: 'GET', path: '/accounts', consent: 'required' },
  getAccount: { method: 'GET', path: '/accounts/{accountId}', consent: 'required' },
  getAccountBalances: { method: 'GET', path: '/accounts/{accountId}/balances', consent: 'required' },
  getTransactions: { method: 'GET', path: '/accounts/{accountId}/transactions', consent: 'required' },
  getRealTimeTransactions: {
    method: 'GET',
    path: '/accounts/{accountId}/real-time/transactions',
    consent: 'required',
  },
  getStatements: { method: 'GET', path: '/accounts/{accountId}/statements', consent: 'required' },
  getStatement: {
    method: 'GET',
    path: '/accounts/{accountId}/statements/{statementId}',
    consent: 'required',
  },
  getBeneficiaries: { method: 'GET', path: '/accounts/{accountId}/beneficiaries', consent: 'required' },
  createTransactionsCategorisation: {
    method: 'POST',
    path: '/accounts/{accountId}/transactions/categorisation',
    consent: 'required',
    contentType: 'application/json',
  },
  getCategorisedTransactions: {
    method: 'GET',
    path: '/accounts/{accountId}/transactions/categorisation/{categorisationId}',
    consent: 'required',
  },
  // upstream.payments
  createPaymentAuthorisation: { method: 'POST', path: '/payment-auth-requests', consent: 'none' },
  createPayment: { method: 'POST', path: '/payments', consent: 'required' },
  getPayments: { method: 'GET', path: '/payments/{paymentId}/details', consent: 'required' },
  // upstream.vrp
  createSweepingAuthorisation: {
    method: 'POST',
    path: '/variable-recurring-payments/sweeping/consents',
    consent: 'none',
  },
  getSweepingConsentById: {
    method: 'GET',
    path: '/variable-recurring-payments/sweeping/consents/{consentId}',
    consent: 'none',
  },
  getCommercialVrpConsentById: {
    method: 'GET',
    path: '/variable-recurring-payments/commercial/consents/{consentId}',
    consent: 'none',
  },
  createVrpFundsConfirmation: {
    method: 'POST',
    path: '/variable-recurring-payments/funds-confirmation',
    consent: 'required',
  },
  createVrpPayment: { method: 'POST', path: '/variable-recurring-payments/payments', consent: 'required' },
  getVrpPaymentDetails: {
    method: 'GET',
    path: '/variable-recurring-payments/payments/{paymentId}/details',
    consent: 'required',
  },
  postHostedCommercialVrpRequest: {
    method: 'POST',
    path: '/hosted/vrp-requests/commercial',
    consent: 'none',
  },
  getHostedVrpRequest: {
    method: 'GET',
    path: '/hosted/vrp-requests/commercial/{requestId}',
    consent: 'none',
  },
  // upstream.users
  addUser: { method: 'POST', path: '/users', consent: 'none', envelope: 'bare' },
  getUsers: { method: 'GET', path: '/users', consent: 'none', envelope: 'bare' },
  getUser: { method: 'GET', path: '/users/{userUuid}', consent: 'none', envelope: 'bare' },
  patchUser: {
    method: 'PATCH',
    path: '/users/{userUuid}',
    consent: 'none',
    contentType: 'application/json-patch+json',
    envelope: 'bare',
  },
  deleteUser: { method: 'DELETE', path: '/users/{userUuid}', consent: 'none' },
  // upstream.applications
  searchApplications: { method: 'GET', path: '/applications', consent: 'none' },
  getApplicationById: { method: 'GET', path: '/applications/{applicationId}', consent: 'none' },
  // upstream.institutions
  getInstitutions: { method: 'GET', path: '/institutions', consent: 'none' },
  getInstitution: { method: 'GET', path: '/institutions/{institutionId}', consent: 'none', envelope: 'bare' },
  getAccountConstraintsRulesByInstitution: {
    method: 'GET',
    path: '/institutions/constraints/data',
    consent: 'none',
  },
  getPaymentConstraintsRulesByInstitution: {
    method: 'GET',
    path: '/institutions/constraints/payments',
    consent: 'none',
  },
  // upstream.webhooks
  getEventSubscriptions: { method: 'GET', path: '/notifications/event-subscriptions', consent: 'none' },
  deleteEventSubscriptionById: {
    method: 'DELETE',
    path: '/notifications/event-subscriptions/{eventTypeId}',
    consent: 'none',
  },
  getWebhookCategories: { method: 'GET', path: '/webhook/events/categories', consent: 'none' },
  registerWebhook: { method: 'POST', path: '/webhook/events', consent: 'none' },
  getRegisteredWebhooks: { method: 'GET', path: '/webhook/events', consent: 'none' },
  resetWebhookSecret: { method: 'POST', path: '/webhook/secrets/{webhook_id}', consent: 'none' },
  deleteWebhook: { method: 'DELETE', path: '/webhook/events/{webhook_id}', consent: 'none' },
} as const satisfies { [K in UpstreamOperationName]: UpstreamRoute & DocumentedRoute<K> };

/** What one call adds to its operation's route. */
export interface CallParts {
  /** The value of each `{name}` of the route's path. */
  ids?: Readonly<Record<string, string>>;
  query?: RequestSpec['query'];
  body?: unknown;
  /** For operations whose body names the institution: the breaker it selects. */
  institutionId?: string;
  goneOnRetry?: unknown;
}

/**
 * The request an operation's call makes. Its ids are encoded here, before anything is sent, so a bad id
 * throws at the call as it always has.
 */
export function requestOf(operation: UpstreamOperationName, parts: CallParts): Omit<RequestSpec, 'retry'> {
  const { ids, ...given } = parts;
  const route: UpstreamRoute = UPSTREAM_ROUTES[operation];
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const id = ids?.[name];
    if (id === undefined) throw new Error(`${operation}: no value for {${name}} in its path`);
    return segment(id);
  });
  return { operation, ...route, ...given, path };
}
