import type { RequestSpec } from './upstream-request.js';
import type { RetryMode } from './upstream-resilience.policy.js';

/**
 * How each operation may be retried: the one place this is decided (docs/upstream-client.md lists it).
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

export function retryFor(operation: string, body: unknown): RequestSpec['retry'] {
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
