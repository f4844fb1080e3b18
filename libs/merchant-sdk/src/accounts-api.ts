import {
  type CreateOptions,
  dataOf,
  envelopeOf,
  idempotencyHeader,
  type RawClient,
  sleep,
} from './http-transport.js';
import type { Account, Body, Data, Item, Query, SyncRun, Transaction, UpstreamCall } from './models.js';
import { type PagedList, pagedList } from './paging.js';

type AccountPath = '/v1/accounts/{accountId}';

/** How often `whenComplete` asks while a first sync runs. */
const COMPLETE_POLL_MS = 1_000;

export interface AccountsApi {
  /** The user's accounts, with their balances and sync state. */
  list(userId: string, query?: Query<'/v1/users/{userId}/accounts'>): PagedList<Account>;
  get(accountId: string): Promise<Account>;
  /** The bank's statements, read through to the bank on each call. */
  statements(
    accountId: string,
    query?: Query<`${AccountPath}/statements`>,
  ): PagedList<Item<`${AccountPath}/statements`>>;
  /** The account's beneficiaries at the bank: the whole list in one answer. */
  beneficiaries(accountId: string): Promise<Data<`${AccountPath}/beneficiaries`>>;
}

/**
 * `bff.transactions(accountId, query)`: the transactions the background sync stored, newest first unless
 * `sort` says otherwise, every page followed as you iterate.
 */
export interface TransactionsApi {
  (accountId: string, query?: Query<`${AccountPath}/transactions`>): PagedList<Transaction>;
  /** The bank's own pages, read through on each call (no `limit`: the bank chooses the page size). */
  live(accountId: string, query?: Query<`${AccountPath}/transactions/live`>): PagedList<Transaction>;
  /** Categorises the transactions you send, with the upstream's categories. */
  categorise(
    accountId: string,
    input: Body<`${AccountPath}/transactions/categorisation`, 'post'>,
    options?: CreateOptions,
  ): Promise<Data<`${AccountPath}/transactions/categorisation`, 'post'>>;
  /**
   * One page of the user's transactions change feed from `query.cursor` (none: from the start): apply
   * `added` and `modified` as upserts by (accountId, transaction.id), then `removed`, keep `nextCursor`,
   * and ask again while `hasMore`.
   */
  changes(
    userId: string,
    query?: Query<'/v1/users/{userId}/transactions/changes'>,
  ): Promise<Data<'/v1/users/{userId}/transactions/changes'>>;
  /**
   * Waits for the account's first sync to end, asking every `intervalMs` (1000); `signal` gives up.
   * Resolves `{ complete: true }` once the stored list is whole (`meta.complete`), or `{ complete: false,
   * syncStatus, syncError }` once the sync has failed or stopped short of it (the list holds what was
   * written; a failed account is tried again within minutes, and `sync.succeeded` tells when). Never
   * waits on a sync that is not running.
   */
  whenComplete(
    accountId: string,
    options?: { intervalMs?: number; signal?: AbortSignal },
  ): Promise<Completeness>;
}

/** What `whenComplete` found: the stored list whole, or the first sync ended short of it, and why. */
export type Completeness =
  { complete: true } | { complete: false; syncStatus: 'failed' | 'stopped'; syncError: string | null };

export interface SyncsApi {
  /** Asks for a sync of the account now (202); `sync.succeeded` or `sync.failed` follows. */
  request(accountId: string): Promise<Data<`${AccountPath}/sync`, 'post'>>;
  /** The account's sync runs, newest first. */
  list(accountId: string, query?: Query<`${AccountPath}/syncs`>): PagedList<SyncRun>;
  get(syncId: string): Promise<SyncRun>;
  /** Every attempt of every call made to the upstream for the run, newest first (merchant key only). */
  upstreamCalls(syncId: string, query?: Query<'/v1/syncs/{syncId}/upstream-calls'>): PagedList<UpstreamCall>;
}

export function accountsApi(raw: RawClient): AccountsApi {
  const at = (accountId: string) => ({ accountId });
  return {
    list: (userId, query = {}) =>
      pagedList(
        (q) => envelopeOf(raw.GET('/v1/users/{userId}/accounts', { params: { path: { userId }, query: q } })),
        query,
      ),
    get: (accountId) => dataOf(raw.GET('/v1/accounts/{accountId}', { params: { path: at(accountId) } })),
    statements: (accountId, query = {}) =>
      pagedList(
        (q) =>
          envelopeOf(
            raw.GET('/v1/accounts/{accountId}/statements', { params: { path: at(accountId), query: q } }),
          ),
        query,
        // The cursor carries the first request's from, before and sort: only the limit goes with it.
        (first, cursor) => ({ limit: first.limit, cursor }),
      ),
    beneficiaries: (accountId) =>
      dataOf(raw.GET('/v1/accounts/{accountId}/beneficiaries', { params: { path: at(accountId) } })),
  };
}

export function transactionsApi(raw: RawClient): TransactionsApi {
  const stored = (accountId: string, query: Query<`${AccountPath}/transactions`> = {}) =>
    pagedList(
      (q) =>
        envelopeOf(
          raw.GET('/v1/accounts/{accountId}/transactions', { params: { path: { accountId }, query: q } }),
        ),
      query,
    );
  return Object.assign(stored, {
    live: (accountId: string, query: Query<`${AccountPath}/transactions/live`> = {}) =>
      pagedList(
        (q) =>
          envelopeOf(
            raw.GET('/v1/accounts/{accountId}/transactions/live', {
              params: { path: { accountId }, query: q },
            }),
          ),
        query,
        // The live cursor wraps the bank's, which knows the window: it goes back alone.
        (_first, cursor) => ({ cursor }),
      ),
    categorise: (
      accountId: string,
      input: Body<`${AccountPath}/transactions/categorisation`, 'post'>,
      options: CreateOptions = {},
    ) =>
      dataOf(
        raw.POST('/v1/accounts/{accountId}/transactions/categorisation', {
          params: { path: { accountId }, header: idempotencyHeader(options.idempotencyKey) },
          body: input,
        }),
      ),
    changes: (userId: string, query: Query<'/v1/users/{userId}/transactions/changes'> = {}) =>
      dataOf(raw.GET('/v1/users/{userId}/transactions/changes', { params: { path: { userId }, query } })),
    async whenComplete(
      accountId: string,
      options: { intervalMs?: number; signal?: AbortSignal } = {},
    ): Promise<Completeness> {
      for (;;) {
        const first = await envelopeOf(
          raw.GET('/v1/accounts/{accountId}/transactions', {
            params: { path: { accountId }, query: { limit: 1 } },
            signal: options.signal,
          }),
        );
        const meta = first.meta;
        // An api that does not say (older than `meta.complete`) has no partial lists to wait for.
        if (meta.complete !== false) return { complete: true };
        if (meta.syncStatus === 'failed' || meta.syncStatus === 'stopped') {
          return { complete: false, syncStatus: meta.syncStatus, syncError: meta.syncError };
        }
        await sleep(options.intervalMs ?? COMPLETE_POLL_MS, options.signal);
      }
    },
  });
}

export function syncsApi(raw: RawClient): SyncsApi {
  return {
    request: (accountId) =>
      dataOf(raw.POST('/v1/accounts/{accountId}/sync', { params: { path: { accountId } } })),
    list: (accountId, query = {}) =>
      pagedList(
        (q) =>
          envelopeOf(
            raw.GET('/v1/accounts/{accountId}/syncs', { params: { path: { accountId }, query: q } }),
          ),
        query,
      ),
    get: (syncId) => dataOf(raw.GET('/v1/syncs/{syncId}', { params: { path: { syncId } } })),
    upstreamCalls: (syncId, query = {}) =>
      pagedList(
        (q) =>
          envelopeOf(
            raw.GET('/v1/syncs/{syncId}/upstream-calls', { params: { path: { syncId }, query: q } }),
          ),
        query,
      ),
  };
}
