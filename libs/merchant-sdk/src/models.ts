import type { components, paths } from './generated/openapi.js';

/**
 * Names for what the API sends and takes, all read from the generated OpenAPI types, so that a change of
 * the document changes them (`npm run sdk:generate`) and the compiler shows every use it breaks.
 */

export type { components, paths };

/** A schema of the API's document by name: `Schema<'UserOutput'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** The API's closed set of error codes (the error envelope's `code`). */
export type ErrorCode = Schema<'ErrorCode'>;
export type ApiErrorDetail = Schema<'ApiErrorDetail'>;
export type ApiUpstreamErrorInfo = Schema<'ApiUpstreamErrorInfo'>;
export type ApiErrorResponse = Schema<'ApiErrorResponse'>;

/**
 * An event, as merchant endpoints receive it (the body) and the user stream sends it (`data:`): a union
 * on `type`, so that `if (event.type === 'sync.succeeded')` gives `event.data` its shape.
 */
export type BffEvent = Schema<'MerchantEventOutput'>;
export type BffEventType = BffEvent['type'];
/** The event of one type: `BffEventOf<'payment.completed'>`. */
export type BffEventOf<T extends BffEventType> = Extract<BffEvent, { type: T }>;

// ---- operations, by path and method ------------------------------------------------------------------

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Path = keyof paths;

type OperationAt<P extends Path, M extends HttpMethod> = paths[P] extends { [K in M]: infer O } ? O : never;
type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body an operation takes: `Body<'/v1/users', 'post'>`. */
export type Body<P extends Path, M extends HttpMethod> =
  OperationAt<P, M> extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> : never;

/** The query an operation takes. */
export type Query<P extends Path, M extends HttpMethod = 'get'> =
  OperationAt<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** `data` of an operation's success envelope. */
export type Data<P extends Path, M extends HttpMethod = 'get'> =
  OperationAt<P, M> extends { responses: infer R }
    ? JsonOf<R[keyof R & (200 | 201 | 202)]> extends { data: infer D }
      ? D
      : never
    : never;

/** One item of a list operation's `data`. */
export type Item<P extends Path> = Data<P> extends readonly (infer I)[] ? I : never;

// ---- the resources merchants handle most, by name ----------------------------------------------------

export type Me = Data<'/v1/me'>;
export type User = Schema<'UserOutput'>;
export type UserSession = Schema<'UserSessionOutput'>;
export type Institution = Schema<'InstitutionOutput'>;
export type Consent = Schema<'ConsentOutput'>;
export type ConsentStatusChange = Schema<'ConsentStatusChangeOutput'>;
export type Account = Schema<'AccountOutput'>;
export type Transaction = Schema<'TransactionOutput'>;
export type SyncRun = Schema<'SyncRunOutput'>;
export type Payment = Schema<'PaymentOutput'>;
export type EventEndpoint = Schema<'EventEndpointOutput'>;
export type Merchant = Schema<'MerchantOutput'>;
export type ApiKey = Schema<'ApiKeyOutput'>;
export type AuditEntry = Schema<'AuditEntryOutput'>;
export type EventDelivery = Schema<'EventDeliveryOutput'>;
/** What `bff.lookup(id)` found: `{ syncRuns, events, deliveries, more }`. */
export type Lookup = Schema<'LookupOutput'>;
export type EventDeliveryAttempt = Schema<'EventDeliveryAttemptOutput'>;
/** What `bff.insights.conversion()` answers: `{ from, to, rows }`, a row a day and institution. */
export type Conversion = Schema<'ConversionOutput'>;
/** What `bff.insights.connectFunnel()` answers: `{ from, to, institutions, days }`, each row with its errors. */
export type ConnectFunnel = Schema<'ConnectFunnelOutput'>;
/** A step of an attempt to connect a bank, as `<bff-connect>` reports it. */
export type ConnectReport = Schema<'ConnectReportInput'>;
/** What `bff.insights.institutionHealth()` answers: `{ from, to, bucket, institutions, buckets }`. */
export type InstitutionHealth = Schema<'InstitutionHealthOutput'>;
/** One attempt of a call made to the upstream (a consent's, run's or payment's call log). */
export type UpstreamCall = Schema<'UpstreamCallOutput'>;
