import { BffError } from './errors.js';
import {
  type CreateOptions,
  dataOf,
  doneOf,
  envelopeOf,
  idempotencyHeader,
  type RawClient,
} from './http-transport.js';
import type { Body, Data, Institution, Me, Query, User, UserSession } from './models.js';
import { type ListEnvelope, type PagedList, pagedList } from './paging.js';

export interface UsersApi {
  /** Creates the user, or answers the one with this `reference` (create-or-return). Merchant key only. */
  create(input: Body<'/v1/users', 'post'>, options?: CreateOptions): Promise<User>;
  /** Every user of the merchant, oldest first. Merchant key only. */
  list(query?: Omit<Query<'/v1/users'>, 'reference'>): PagedList<User>;
  /** The user with this reference; a BffError `NOT_FOUND` when there is none. */
  findByReference(reference: string): Promise<User>;
  get(userId: string): Promise<User>;
  update(userId: string, input: Body<'/v1/users/{userId}', 'patch'>): Promise<User>;
  /** Erases the user, upstream and here, with their consents, accounts and transactions. */
  delete(userId: string): Promise<void>;
}

export interface SessionsApi {
  /**
   * Mints a session token for the user's browser (`us_…`, short-lived): a frontend makes its own client
   * with it, which may act for that user only. Merchant key only.
   */
  create(userId: string): Promise<UserSession>;
}

export interface InstitutionsApi {
  /** The banks, each with the `flows` and `features` it offers. */
  list(query?: Query<'/v1/institutions'>): PagedList<Institution>;
  get(institutionId: string): Promise<Data<'/v1/institutions/{institutionId}'>>;
}

export function usersApi(raw: RawClient): UsersApi {
  return {
    create: (input, options = {}) =>
      dataOf(
        raw.POST('/v1/users', { body: input, params: { header: idempotencyHeader(options.idempotencyKey) } }),
      ),
    list: (query = {}) =>
      // This one route also finds a user by reference, so its document types `data` as either: a page
      // is checked to be one.
      pagedList(
        async (q) => asUserPage(await envelopeOf(raw.GET('/v1/users', { params: { query: q } }))),
        query,
      ),
    findByReference: async (reference) => {
      const { data } = await envelopeOf(raw.GET('/v1/users', { params: { query: { reference } } }));
      if (data === undefined || Array.isArray(data)) throw unexpected('no one user for a reference');
      return data;
    },
    get: (userId) => dataOf(raw.GET('/v1/users/{userId}', { params: { path: { userId } } })),
    update: (userId, input) =>
      dataOf(raw.PATCH('/v1/users/{userId}', { params: { path: { userId } }, body: input })),
    delete: (userId) => doneOf(raw.DELETE('/v1/users/{userId}', { params: { path: { userId } } })),
  };
}

export function sessionsApi(raw: RawClient): SessionsApi {
  return {
    create: (userId) => dataOf(raw.POST('/v1/users/{userId}/sessions', { params: { path: { userId } } })),
  };
}

export function institutionsApi(raw: RawClient): InstitutionsApi {
  return {
    list: (query = {}) =>
      pagedList((q) => envelopeOf(raw.GET('/v1/institutions', { params: { query: q } })), query),
    get: (institutionId) =>
      dataOf(raw.GET('/v1/institutions/{institutionId}', { params: { path: { institutionId } } })),
  };
}

export function meOf(raw: RawClient): () => Promise<Me> {
  return () => dataOf(raw.GET('/v1/me'));
}

function asUserPage(envelope: { data?: User | User[]; meta?: Record<string, unknown> }): ListEnvelope<User> {
  const { data, meta } = envelope;
  if (!Array.isArray(data) || typeof meta !== 'object' || !('nextCursor' in meta)) {
    throw unexpected('a page of users without its list');
  }
  return { data, meta: meta as ListEnvelope<User>['meta'] };
}

const unexpected = (what: string) =>
  new BffError({ status: 200, code: 'UNEXPECTED_RESPONSE', message: `GET /v1/users answered ${what}` });
