import {
  type CreateOptions,
  dataOf,
  doneOf,
  envelopeOf,
  idempotencyHeader,
  type RawClient,
} from './http-transport.js';
import type { Body, Consent, ConsentStatusChange, Data, Query, UpstreamCall } from './models.js';
import { type PagedList, pagedList } from './paging.js';

type ConsentPath = '/v1/consents/{consentId}';

export interface ConsentsApi {
  /**
   * Starts a data consent at a bank (the redirect flow): send the user to `authorisationUrl`; the bank
   * sends them back through the BFF to your `redirectUrl` with `consentId` and `status`.
   */
  create(
    userId: string,
    input: Body<'/v1/users/{userId}/consents', 'post'>,
    options?: CreateOptions,
  ): Promise<Data<'/v1/users/{userId}/consents', 'post'>>;
  list(userId: string, query?: Query<'/v1/users/{userId}/consents'>): PagedList<Consent>;
  get(consentId: string): Promise<Consent>;
  /** Every status the consent has had, oldest first: `from` (null for the first), `to` and `changedAt`. */
  history(consentId: string, query?: Query<`${ConsentPath}/history`>): PagedList<ConsentStatusChange>;
  /** Every attempt of every call made to the upstream for the consent, its runs' and payments' too. */
  upstreamCalls(consentId: string, query?: Query<`${ConsentPath}/upstream-calls`>): PagedList<UpstreamCall>;
  /** Revokes the consent at the bank and here; its accounts stop syncing (their data stays). */
  revoke(consentId: string): Promise<void>;
  /** The embedded flow: the user's credentials go to the bank, then an SCA method and a code. */
  createEmbedded(
    userId: string,
    input: Body<'/v1/users/{userId}/consents/embedded', 'post'>,
    options?: CreateOptions,
  ): Promise<Data<'/v1/users/{userId}/consents/embedded', 'post'>>;
  selectScaMethod(
    consentId: string,
    input: Body<`${ConsentPath}/sca-method`, 'post'>,
  ): Promise<Data<`${ConsentPath}/sca-method`, 'post'>>;
  /** Answers 202: the bank confirms the code in the background (`consent.authorized` when it has). */
  submitScaCode(
    consentId: string,
    input: Body<`${ConsentPath}/sca-code`, 'post'>,
  ): Promise<Data<`${ConsentPath}/sca-code`, 'post'>>;
  /** Renews a consent that is still authorised: send the user to the answer's `authorisationUrl`. */
  reauthorise(
    consentId: string,
    input: Body<`${ConsentPath}/reauthorise`, 'post'>,
    options?: CreateOptions,
  ): Promise<Data<`${ConsentPath}/reauthorise`, 'post'>>;
  /** Changes a consent's scopes or dates before the user approves it. */
  updatePreAuthorisation(
    consentId: string,
    input: Body<`${ConsentPath}/pre-authorisation`, 'put'>,
  ): Promise<Data<`${ConsentPath}/pre-authorisation`, 'put'>>;
}

export function consentsApi(raw: RawClient): ConsentsApi {
  const at = (consentId: string) => ({ path: { consentId } });
  return {
    create: (userId, input, options = {}) =>
      dataOf(
        raw.POST('/v1/users/{userId}/consents', {
          params: { path: { userId }, header: idempotencyHeader(options.idempotencyKey) },
          body: input,
        }),
      ),
    list: (userId, query = {}) =>
      pagedList(
        (q) => envelopeOf(raw.GET('/v1/users/{userId}/consents', { params: { path: { userId }, query: q } })),
        query,
      ),
    get: (consentId) => dataOf(raw.GET('/v1/consents/{consentId}', { params: at(consentId) })),
    history: (consentId, query = {}) =>
      pagedList(
        (q) =>
          envelopeOf(raw.GET('/v1/consents/{consentId}/history', { params: { ...at(consentId), query: q } })),
        query,
      ),
    upstreamCalls: (consentId, query = {}) =>
      pagedList(
        (q) =>
          envelopeOf(
            raw.GET('/v1/consents/{consentId}/upstream-calls', { params: { ...at(consentId), query: q } }),
          ),
        query,
      ),
    revoke: (consentId) => doneOf(raw.DELETE('/v1/consents/{consentId}', { params: at(consentId) })),
    createEmbedded: (userId, input, options = {}) =>
      dataOf(
        raw.POST('/v1/users/{userId}/consents/embedded', {
          params: { path: { userId }, header: idempotencyHeader(options.idempotencyKey) },
          body: input,
        }),
      ),
    selectScaMethod: (consentId, input) =>
      dataOf(raw.POST('/v1/consents/{consentId}/sca-method', { params: at(consentId), body: input })),
    submitScaCode: (consentId, input) =>
      dataOf(raw.POST('/v1/consents/{consentId}/sca-code', { params: at(consentId), body: input })),
    reauthorise: (consentId, input, options = {}) =>
      dataOf(
        raw.POST('/v1/consents/{consentId}/reauthorise', {
          params: { ...at(consentId), header: idempotencyHeader(options.idempotencyKey) },
          body: input,
        }),
      ),
    updatePreAuthorisation: (consentId, input) =>
      dataOf(raw.PUT('/v1/consents/{consentId}/pre-authorisation', { params: at(consentId), body: input })),
  };
}
