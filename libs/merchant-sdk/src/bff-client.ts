import {
  type AccountsApi,
  accountsApi,
  type SyncsApi,
  syncsApi,
  type TransactionsApi,
  transactionsApi,
} from './accounts-api.js';
import { type ConsentsApi, consentsApi } from './consents-api.js';
import { type EventEndpointsApi, eventEndpointsApi, type EventsApi, eventsApi } from './events-api.js';
import { createRawClient, type RawClient, type TokenSource } from './http-transport.js';
import { type InsightsApi, insightsApi } from './insights-api.js';
import { lookupOf } from './lookup-api.js';
import { type MerchantApi, merchantApi } from './merchant-api.js';
import type { Lookup, Me } from './models.js';
import { type PaymentsApi, paymentsApi, type VrpApi, vrpApi } from './payments-api.js';
import {
  type InstitutionsApi,
  institutionsApi,
  meOf,
  type SessionsApi,
  sessionsApi,
  type UsersApi,
  usersApi,
} from './users-api.js';

export interface BffClientOptions {
  /** The api's URL, e.g. `https://bff.example.com` (the `/v1` paths are added). */
  baseUrl: string;
  /**
   * A merchant API key (`mk_…`, on your backend only) or a user's session token (`us_…`, in their
   * browser), or a function answering the current one (called for every request, so a session can be
   * renewed without a new client). Leave it out only with `cookie: true`.
   */
  token?: TokenSource;
  /**
   * No token: on a page the api serves itself (its web console, `/console/`), the console session's
   * HttpOnly cookie goes with every request instead, and the page never holds a credential.
   */
  cookie?: boolean;
  /**
   * The fetch to send with (default: the global one): for a proxy, a test double, a custom agent. Pass
   * `init.signal` on: the event stream is closed through it.
   */
  fetch?: (request: Request, init?: { signal?: AbortSignal }) => Promise<Response>;
  /**
   * How many times a 429, or a 503 where repeating is safe, is tried again after its `Retry-After`
   * (default 2).
   */
  maxRetries?: number;
  /** The longest `Retry-After` waited out (default 60 s); a longer one is thrown as a BffError at once. */
  maxRetryAfterSeconds?: number;
  /**
   * Revalidate reads (default false, since 1.5.0): keep the last tagged answer of each read, per URL and
   * per credential (the `REVALIDATE_MAX_ENTRIES`, 500, most recently used), send its `ETag` as
   * `If-None-Match`, and answer a 304 with it (`meta.tracingId` the new request's). `raw` is not
   * revalidated.
   */
  revalidate?: boolean;
}

/**
 * The merchant API, one namespace per resource. Every method answers the envelope's `data` or throws a
 * BffError; lists answer a PagedList (iterate it with `for await`).
 */
export interface BffClient {
  /** Who the token is: `{ kind, merchant, user? }`. */
  me(): Promise<Me>;
  users: UsersApi;
  sessions: SessionsApi;
  institutions: InstitutionsApi;
  consents: ConsentsApi;
  accounts: AccountsApi;
  /** `bff.transactions(accountId, { from })`, `bff.transactions.live(…)`, `bff.transactions.categorise(…)`. */
  transactions: TransactionsApi;
  syncs: SyncsApi;
  payments: PaymentsApi;
  vrp: VrpApi;
  eventEndpoints: EventEndpointsApi;
  events: EventsApi;
  /**
   * What a tracing id (the upstream's, of a failed sync; ours, of an api answer), or the id of a sync run,
   * an event or a delivery, names among your runs, events and deliveries, and what those lead to: at most
   * 50 of each, newest first (merchant key only).
   */
  lookup(id: string): Promise<Lookup>;
  /** Connection conversion, the connect funnel and institution health, by institution and day. */
  insights: InsightsApi;
  /** The merchant's own origins, keys and audit log (merchant key only). */
  merchant: MerchantApi;
  /**
   * The underlying openapi-fetch client, with the same token, idempotency keys and retries: every path of
   * the merchant API, typed, answering `{ data, error, response }` instead of throwing.
   */
  raw: RawClient;
}

/** A client of the merchant API, for Node 20+ and browsers. */
export function createBffClient(options: BffClientOptions): BffClient {
  if (!options.baseUrl) throw new TypeError('createBffClient needs the api baseUrl');
  if (!options.token && !options.cookie) {
    throw new TypeError(
      'createBffClient needs a token (an API key or a session token), or cookie: true on a page the api serves',
    );
  }
  const raw = createRawClient({ ...options, revalidate: false });
  // The methods' own client: a revalidated 304 is an answer only their dataOf/envelopeOf read.
  const sdk = options.revalidate ? createRawClient(options) : raw;
  return {
    me: meOf(sdk),
    users: usersApi(sdk),
    sessions: sessionsApi(sdk),
    institutions: institutionsApi(sdk),
    consents: consentsApi(sdk),
    accounts: accountsApi(sdk),
    transactions: transactionsApi(sdk),
    syncs: syncsApi(sdk),
    payments: paymentsApi(sdk),
    vrp: vrpApi(sdk),
    eventEndpoints: eventEndpointsApi(sdk),
    events: eventsApi(sdk),
    lookup: lookupOf(sdk),
    insights: insightsApi(sdk),
    merchant: merchantApi(sdk),
    raw,
  };
}
