/**
 * Every upstream operation the client calls: the name its metrics, logs and errors use → the upstream's
 * `operationId` in its public OpenAPI document. `npm run upstream:types -- <openapi.json>` generates the
 * types of exactly these operations and what they refer to (generated/upstream-openapi.ts); the client
 * names each request's operation from this table, so a call the table lacks does not compile, and the
 * sandbox's answers are typed by the same generated shapes.
 *
 * Our names are the spec's where the document's differ (`delete` is too vague for a metrics label). The
 * table compiles only while the generated file has each of its operations.
 */
import type { operations, paths } from './generated/upstream-openapi.js';

export const UPSTREAM_OPERATIONS = {
  addUser: 'addUser',
  createPayment: 'createPayment',
  createPaymentAuthorisation: 'createPaymentAuthorisation',
  createSweepingAuthorisation: 'createSweepingAuthorisation',
  createTransactionsCategorisation: 'post-accounts-accountId-transactions-categorisation',
  createVrpFundsConfirmation: 'createVrpFundsConfirmation',
  createVrpPayment: 'createVrpPayment',
  deleteConsent: 'delete',
  deleteEventSubscriptionById: 'deleteEventSubscriptionById',
  deleteUser: 'deleteUser',
  deleteWebhook: 'deleteWebhook',
  extendConsent: 'extendConsent',
  getAccount: 'getAccount',
  getAccountBalances: 'getAccountBalances',
  getAccountConstraintsRulesByInstitution: 'getAccountConstraintsRulesByInstitution',
  getAccounts: 'getAccounts',
  getApplicationById: 'getApplicationById',
  getBeneficiaries: 'getBeneficiaries',
  getCategorisedTransactions: 'get-accounts-transactions-categorised',
  getCommercialVrpConsentById: 'getCommercialVrpConsentById',
  getConsentById: 'getConsentById',
  getConsentBySingleAccessConsent: 'getConsentBySingleAccessConsent',
  getConsents: 'getConsents',
  getEventSubscriptions: 'getEventSubscriptions',
  getHostedVrpRequest: 'getHostedCommercialVrpRequest',
  getInstitution: 'getInstitution',
  getInstitutions: 'getInstitutions',
  getPaymentConstraintsRulesByInstitution: 'getPaymentConstraintsRulesByInstitution',
  getPayments: 'getPayments',
  getRealTimeTransactions: 'getRealTimeTransactions',
  getRegisteredWebhooks: 'getRegisteredWebhooks',
  getStatement: 'getStatement',
  getStatements: 'getStatements',
  getSweepingConsentById: 'getSweepingVrpConsentById',
  getTransactions: 'getTransactions',
  getUser: 'getUser',
  getUsers: 'getUsers',
  getVrpPaymentDetails: 'getVrpPaymentDetails',
  getWebhookCategories: 'getWebhookEventsCategories',
  initiateAccountRequest: 'initiateAccountRequest',
  initiateEmbeddedAccountRequest: 'initiateEmbeddedAccountRequest',
  patchUser: 'patchUser',
  postHostedCommercialVrpRequest: 'postHostedCommercialVrpRequest',
  reAuthoriseAccount: 'reAuthoriseAccount',
  registerWebhook: 'registerWebhook',
  resetWebhookSecret: 'webhookSecretReset',
  searchApplications: 'searchApplications',
  updateEmbeddedAccountRequest: 'updateEmbeddedAccountRequest',
  updatePreAuthoriseAccountConsent: 'updatePreAuthoriseAccountConsent',
} as const satisfies Record<string, keyof operations>;

export type UpstreamOperationName = keyof typeof UPSTREAM_OPERATIONS;

type Verb = 'get' | 'put' | 'post' | 'delete' | 'patch';
type OperationOf<K extends UpstreamOperationName> = operations[(typeof UPSTREAM_OPERATIONS)[K]];

/**
 * Where the upstream's document serves the operation named `K`: its path and method (in capitals), as the
 * client's route table must give them (libs/upstream-client's UPSTREAM_ROUTES). Matched by the
 * operation's generated shape, so two operations of one shape would accept either's route.
 */
export type DocumentedRoute<K extends UpstreamOperationName> = {
  [P in keyof paths]: {
    [M in Verb]: [paths[P][M]] extends [OperationOf<K>]
      ? [OperationOf<K>] extends [paths[P][M]]
        ? { path: P; method: Uppercase<M> }
        : never
      : never;
  }[Verb];
}[keyof paths];
