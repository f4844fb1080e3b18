import type {
  AccountAuthorisationRequest,
  AuthorisationResponse,
  Consent,
  ConsentDeleteResult,
  ConsentsQuery,
  EmbeddedAccountAuthorisationRequest,
  EmbeddedAuthorisationUpdate,
} from './upstream.types.js';
import type { UpstreamClientCore } from './upstream-client.core.js';
import type { PagingOptions } from './upstream-paging.iterator.js';
import type { CallOptions, ConsentCallOptions, SendOptions } from './upstream-request.js';

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

/**
 * The upstream's account authorisations and the consents they create (spec §4.1, §4.8):
 * `upstream.consents`. Payment authorisations live with the payments they authorise.
 */
export class UpstreamConsentsOperations {
  constructor(private readonly core: UpstreamClientCore) {}

  // ---- 4.1 authorisations -------------------------------------------------------------------------

  /** POST /account-auth-requests (initiateAccountRequest). Not retried: each call starts a new consent. */
  createAccountAuthorisation(body: AccountAuthorisationRequest, options?: CallOptions) {
    const parts = { body, institutionId: body.institutionId };
    return this.core.call<AuthorisationResponse>('initiateAccountRequest', parts, options);
  }

  /** PATCH /account-auth-requests (reAuthoriseAccount): a new authorisation URL for the same consent. */
  reauthoriseAccount(options: ConsentCallOptions) {
    return this.core.call<AuthorisationResponse>('reAuthoriseAccount', {}, options);
  }

  /** PUT /account-auth-requests (updatePreAuthoriseAccountConsent). */
  updatePreAuthorisation(body: AccountAuthorisationRequest, options: ConsentCallOptions) {
    const parts = { body, institutionId: body.institutionId };
    return this.core.call<AuthorisationResponse>('updatePreAuthoriseAccountConsent', parts, options);
  }

  /** POST /embedded-account-auth-requests: step one of the embedded flow (credentials). */
  createEmbeddedAccountAuthorisation(body: EmbeddedAccountAuthorisationRequest, options?: CallOptions) {
    const parts = { body, institutionId: body.institutionId };
    return this.core.call<AuthorisationResponse>('initiateEmbeddedAccountRequest', parts, options);
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
    const parts = { ids: { consentId }, body, institutionId: body.institutionId };
    return this.core.call<AuthorisationResponse>('updateEmbeddedAccountRequest', parts, options);
  }

  // ---- consents (4.8 and the full API) -------------------------------------------------------------

  /** GET /consents, one page. Without a user filter the upstream returns at most 1000. */
  list(query: ConsentsQuery = {}, options?: CallOptions) {
    return this.consentsPage(query, options);
  }

  private consentsPage(query: ConsentsQuery, options?: SendOptions) {
    return this.core.page<Consent>('getConsents', { query: consentsQuery(query) }, options);
  }

  /** GET /consents, every page (offset paging). */
  pages(query: ConsentsQuery = {}, options: CallOptions & PagingOptions = {}) {
    return this.core.offsetPages('getConsents', (q, o) => this.consentsPage(q, o), query, options);
  }

  /** GET /consents/{consentId}. */
  get(consentId: string, options?: CallOptions) {
    return this.core.call<Consent>('getConsentById', { ids: { consentId } }, options);
  }

  /** DELETE /consents/{consentId}: revokes the consent upstream. */
  delete(consentId: string, options?: CallOptions & { forceDelete?: boolean }) {
    return this.core.call<ConsentDeleteResult>(
      'deleteConsent',
      {
        ids: { consentId },
        goneOnRetry: { id: consentId, deleteStatus: 'SUCCESS' } satisfies ConsentDeleteResult,
        query: { forceDelete: options?.forceDelete },
      },
      options,
    );
  }

  /** POST /consents/{consentId}/extend: records that the user re-confirmed access. */
  extend(consentId: string, body: { lastConfirmedAt: string }, options?: CallOptions) {
    return this.core.call<Consent>('extendConsent', { ids: { consentId }, body }, options);
  }

  /** POST /consent-one-time-token: the consent (with its token) for a callback's one-time token. Single use. */
  exchangeOneTimeToken(oneTimeToken: string, options?: CallOptions) {
    return this.core.call<Consent>('getConsentBySingleAccessConsent', { body: { oneTimeToken } }, options);
  }
}
