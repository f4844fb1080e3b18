import {
  type CreateOptions,
  dataOf,
  envelopeOf,
  idempotencyHeader,
  type RawClient,
} from './http-transport.js';
import type { Body, Data, Payment, Query, UpstreamCall } from './models.js';
import { type PagedList, pagedList } from './paging.js';

type VrpConsentPath = '/v1/vrp/consents/{consentId}';

export interface PaymentsApi {
  /**
   * A single payment: a single-use consent the user approves at the bank (`authorisationUrl`), made once on
   * the way back; `payment.completed` or `payment.failed` when it ends.
   */
  create(
    userId: string,
    input: Body<'/v1/users/{userId}/payments', 'post'>,
    options?: CreateOptions,
  ): Promise<Payment>;
  list(userId: string, query?: Query<'/v1/users/{userId}/payments'>): PagedList<Payment>;
  get(paymentId: string): Promise<Payment>;
  /** Every attempt of every call made to the upstream for the payment, newest first (merchant key only). */
  upstreamCalls(
    paymentId: string,
    query?: Query<'/v1/payments/{paymentId}/upstream-calls'>,
  ): PagedList<UpstreamCall>;
}

export interface VrpApi {
  /** A sweeping VRP consent with its limits, approved once at the bank. */
  createConsent(
    userId: string,
    input: Body<'/v1/users/{userId}/vrp/consents', 'post'>,
    options?: CreateOptions,
  ): Promise<Data<'/v1/users/{userId}/vrp/consents', 'post'>>;
  /** The consent with, for each periodic limit, what was paid in the current period and what is left. */
  getConsent(consentId: string): Promise<Data<VrpConsentPath>>;
  confirmFunds(
    consentId: string,
    input: Body<`${VrpConsentPath}/funds-confirmation`, 'post'>,
  ): Promise<Data<`${VrpConsentPath}/funds-confirmation`, 'post'>>;
  /** A payment under the consent, checked against every limit first (`VRP_LIMIT_EXCEEDED` otherwise). */
  pay(
    consentId: string,
    input: Body<`${VrpConsentPath}/payments`, 'post'>,
    options?: CreateOptions,
  ): Promise<Payment>;
  payments(consentId: string, query?: Query<`${VrpConsentPath}/payments`>): PagedList<Payment>;
  /**
   * Commercial VRP on the upstream's hosted page: send the user to `hostedUrl`; once they approved,
   * {@link hostedRequest} carries `consentId` to {@link pay} under.
   */
  createHostedRequest(
    userId: string,
    input: Body<'/v1/users/{userId}/hosted/vrp-requests', 'post'>,
    options?: CreateOptions,
  ): Promise<Data<'/v1/users/{userId}/hosted/vrp-requests', 'post'>>;
  /** A hosted VRP request, and once approved its consent (`consentId`); merchant key only. */
  hostedRequest(requestId: string): Promise<Data<'/v1/hosted/vrp-requests/{requestId}'>>;
}

export function paymentsApi(raw: RawClient): PaymentsApi {
  return {
    create: (userId, input, options = {}) =>
      dataOf(
        raw.POST('/v1/users/{userId}/payments', {
          params: { path: { userId }, header: idempotencyHeader(options.idempotencyKey) },
          body: input,
        }),
      ),
    list: (userId, query = {}) =>
      pagedList(
        (q) => envelopeOf(raw.GET('/v1/users/{userId}/payments', { params: { path: { userId }, query: q } })),
        query,
      ),
    get: (paymentId) => dataOf(raw.GET('/v1/payments/{paymentId}', { params: { path: { paymentId } } })),
    upstreamCalls: (paymentId, query = {}) =>
      pagedList(
        (q) =>
          envelopeOf(
            raw.GET('/v1/payments/{paymentId}/upstream-calls', { params: { path: { paymentId }, query: q } }),
          ),
        query,
      ),
  };
}

export function vrpApi(raw: RawClient): VrpApi {
  const at = (consentId: string) => ({ path: { consentId } });
  return {
    createConsent: (userId, input, options = {}) =>
      dataOf(
        raw.POST('/v1/users/{userId}/vrp/consents', {
          params: { path: { userId }, header: idempotencyHeader(options.idempotencyKey) },
          body: input,
        }),
      ),
    getConsent: (consentId) => dataOf(raw.GET('/v1/vrp/consents/{consentId}', { params: at(consentId) })),
    confirmFunds: (consentId, input) =>
      dataOf(
        raw.POST('/v1/vrp/consents/{consentId}/funds-confirmation', { params: at(consentId), body: input }),
      ),
    pay: (consentId, input, options = {}) =>
      dataOf(
        raw.POST('/v1/vrp/consents/{consentId}/payments', {
          params: { ...at(consentId), header: idempotencyHeader(options.idempotencyKey) },
          body: input,
        }),
      ),
    payments: (consentId, query = {}) =>
      pagedList(
        (q) =>
          envelopeOf(
            raw.GET('/v1/vrp/consents/{consentId}/payments', { params: { ...at(consentId), query: q } }),
          ),
        query,
      ),
    createHostedRequest: (userId, input, options = {}) =>
      dataOf(
        raw.POST('/v1/users/{userId}/hosted/vrp-requests', {
          params: { path: { userId }, header: idempotencyHeader(options.idempotencyKey) },
          body: input,
        }),
      ),
    hostedRequest: (requestId) =>
      dataOf(raw.GET('/v1/hosted/vrp-requests/{requestId}', { params: { path: { requestId } } })),
  };
}
