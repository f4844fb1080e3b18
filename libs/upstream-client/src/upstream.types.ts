/**
 * The upstream's wire types as the client names them. The shapes come from the upstream's public OpenAPI
 * (libs/upstream-openapi, `npm run upstream:types`); this file adds only what the document does
 * not say: the fields the spec says are always sent (the document marks few fields required), the
 * client's own envelope and paging types, and the query options the client turns into query strings.
 * Amounts are JSON numbers on the wire; the library never does arithmetic on them. Every string enum of
 * the generated file is open (a known value, or another string): the upstream adds values without notice.
 * Kept whole: one place for every wire type, in sections as the spec has them.
 */
import type {
  components,
  operations,
  UPSTREAM_OPERATIONS,
  UpstreamOperationName,
} from '#libs/upstream-openapi';

type Schemas = components['schemas'];
type Operation<Name extends UpstreamOperationName> = operations[(typeof UPSTREAM_OPERATIONS)[Name]];
type JsonContent<T> = T extends { content: infer Content } ? Content[keyof Content] : never;
/** What a successful call answers: the envelope's `data`, or the bare body of the routes without one. */
type Answer<Name extends UpstreamOperationName> =
  JsonContent<
    Operation<Name>['responses'][keyof Operation<Name>['responses'] & (200 | 201)]
  > extends infer Body
    ? Body extends { data?: infer Data }
      ? NonNullable<Data>
      : Body
    : never;
type RequestBody<Name extends UpstreamOperationName> = JsonContent<
  NonNullable<Operation<Name>['requestBody']>
>;

/** The fields named are always sent (the spec's word, where the document marks them optional). */
type Sent<T, Fields extends keyof T> = T & { [Field in Fields]-?: NonNullable<T[Field]> };
/** A record the upstream may extend: the client passes on fields it does not know. */
type Extensible<T> = T & { [key: string]: unknown };

/** An enum that tolerates values it does not know; known values still autocomplete. */
export type Open<Known extends string> = Known | (string & {});

export type ApiVersion = '1' | '2.0-ALPHA';

// ---- envelope (2.1) -------------------------------------------------------------------------------

export interface OffsetPagingQuery {
  from?: string;
  before?: string;
  limit?: number;
  sort?: Open<'date' | '-date'>;
  offset?: number;
  cursor?: string;
}

export interface UpstreamPagination {
  totalCount?: number;
  self?: OffsetPagingQuery;
  next?: OffsetPagingQuery;
}

export interface UpstreamMeta {
  tracingId?: string;
  count?: number;
  pagination?: UpstreamPagination;
  [key: string]: unknown;
}

export interface UpstreamLinks {
  first?: string;
  prev?: string;
  self?: string;
  next?: string;
  last?: string;
  [key: string]: string | undefined;
}

/** Every successful call: the unwrapped `data`, plus what is needed to trace it. */
export interface UpstreamResult<T> {
  data: T;
  /** `meta.tracingId` (or `metadata.tracingId`); absent only on the few routes that answer a bare resource. */
  tracingId: string | undefined;
  /** The `x-request-id` this client sent; present on every result. */
  requestId: string;
  status: number;
  meta: UpstreamMeta;
  links?: UpstreamLinks;
}

/** One page of a paged list. */
export interface UpstreamPage<T> extends UpstreamResult<T[]> {
  /** `meta.pagination.totalCount` as the server reported it (offset paging only). */
  totalCount?: number;
}

// ---- common ---------------------------------------------------------------------------------------

export type Amount = Schemas['Amount'];
export type AccountIdentification = Sent<Schemas['AccountIdentification'], 'type' | 'identification'>;
export type Party = Extensible<Schemas['Payer']>;
export type Payee = Extensible<Schemas['Payee']>;
export type Feature = Schemas['FeatureEnum'];

export interface PsuHeaders {
  /** `psu-id`: the user's login id for a personal account (institution-dependent). */
  id?: string;
  /** `psu-corporate-id`: the login id for a business account. */
  corporateId?: string;
  /** `psu-ip-address`. */
  ipAddress?: string;
}

// ---- applications (2.2) ---------------------------------------------------------------------------

export type Application = Sent<Schemas['ApplicationResponse'], 'id'>;
export type ApplicationsQuery = NonNullable<
  NonNullable<Operation<'searchApplications'>['parameters']['query']>['publicFilterValues']
>;

// ---- users (2.3) ----------------------------------------------------------------------------------

export type User = Sent<Schemas['ApplicationUser'], 'uuid'>;
/** The document marks `vopOptOut` required; the spec lets it default to false, and the client omits it. */
export type NewUser = Omit<Schemas['NewApplicationUser'], 'vopOptOut'> & { vopOptOut?: boolean };
/** One operation of the JSON-patch of PATCH /users/{userUuid}: all three fields required, values strings. */
export type UserPatchOperation = Schemas['ApplicationUserPatchRequest'] & {
  path: Open<'/applicationUserId' | '/referenceId' | '/vopOptOut'>;
};
export type ConsentDeleteResult = Sent<Schemas['ConsentDeleteResponse'], 'id'>;
export type UserDeleteResult = Sent<Schemas['UserDeleteResponse'], 'id'>;

// ---- institutions ---------------------------------------------------------------------------------

export type Institution = Extensible<Sent<Schemas['Institution'], 'id'>>;
/** One rule of an institution's data or payment constraints: JSON schemas of what one endpoint requires. */
export type InstitutionConstraint = Extensible<
  Schemas['DataConstraintsResponse'] & Pick<Schemas['PaymentConstraintsResponse'], 'paymentType'>
>;
export type ConstraintSchema = Schemas['Schema'];

export interface ConstraintsQuery {
  institutionIds: string[];
  institutionCountryCode: string;
  /** Payments only, and mandatory there (the upstream's OpenAPI): the payment type asked about. */
  paymentType?: string;
  endpointPath?: string;
  endpointMethod?: string;
}

// ---- consents (2.4, 3) ----------------------------------------------------------------------------

export type ConsentStatus = Schemas['AuthorisationStatus'];
export type ScaMethod = Extensible<Schemas['ScaMethod']>;

/** `consentToken` is a secret: send it only in the `consent` header, store it encrypted, never log it. */
export type Consent = Extensible<
  Sent<Schemas['Consent'], 'id' | 'institutionId' | 'status'> & { scaMethods?: ScaMethod[] }
>;

/** An authorisation in progress: a consent plus where to send the user. */
export type AuthorisationResponse = Consent &
  Pick<Schemas['AccountAuthorisationResponse'], 'authorisationUrl' | 'qrCodeUrl'>;

export type AccountRequestDetails = Extensible<Schemas['AccountRequest']>;

/** Spec 2.5: `userUuid` or `applicationUserId` is required; the type enforces one of them. */
type UserReference =
  { userUuid: string; applicationUserId?: string } | { applicationUserId: string; userUuid?: string };

/** What every authorisation request (account, payment, VRP) has besides its own details (upstream spec §2.5). */
export type AuthorisationRequestBase = UserReference &
  Pick<
    Schemas['AccountAuthorisationRequest'],
    'institutionId' | 'callback' | 'oneTimeToken' | 'forwardParameters'
  >;

export type AccountAuthorisationRequest = AuthorisationRequestBase &
  Pick<Schemas['AccountAuthorisationRequest'], 'accountRequest'>;

export type EmbeddedAccountAuthorisationRequest = AccountAuthorisationRequest & {
  userCredentials: Schemas['UserCredentials'];
};

/** The second and third embedded steps: the chosen SCA method, then the SCA code. */
export type EmbeddedAuthorisationUpdate =
  | { institutionId: string; selectedScaMethod: Schemas['ScaMethod'] }
  | { institutionId: string; scaCode: string };

export interface ConsentsQuery {
  applicationUserId?: string | string[];
  userUuid?: string | string[];
  institution?: string | string[];
  status?: ConsentStatus | ConsentStatus[];
  from?: string;
  before?: string;
  limit?: number;
  offset?: number;
}

// ---- financial data (2.8, 2.9, 2.13) ------------------------------------------------------------

export type AccountBalance = Schemas['AccountBalance'];
export type Account = Extensible<Sent<Schemas['Account'], 'id'>>;
export type Balances = Schemas['Balances'];

export interface TransactionsQuery {
  from?: string;
  before?: string;
  /** 1..1000; the upstream's default is 1000. */
  limit?: number;
  sort?: Schemas['SortEnum'];
  offset?: number;
  /** Enrichment to add (version 2 adds `enrichment` only when asked; the document predates it). */
  with?: Open<'categorisation' | 'merchant'>[];
}

export type StatementsQuery = Omit<TransactionsQuery, 'with'>;

export type RealTimeTransactionsQuery = Pick<TransactionsQuery, 'from' | 'before'>;

export type Transaction = Extensible<Schemas['Transaction']>;
export type Statement = Sent<Schemas['AccountStatement'], 'id'>;
export type Beneficiary = Sent<Schemas['Beneficiary'], 'id'>;
export type CategorisationRequest = RequestBody<'createTransactionsCategorisation'>;
export type CategorisationCreated = Extensible<
  Sent<Answer<'createTransactionsCategorisation'>, 'categorisationId'>
>;

// ---- payments -------------------------------------------------------------------------------------

export type PaymentStatus = Schemas['PaymentStatus'];
export type PaymentType = Schemas['PaymentType'];
/** `paymentIdempotencyId` makes the payment safe to retry: the upstream executes one payment per id. */
export type PaymentRequest = Extensible<Schemas['PaymentRequest']>;
export type PaymentAuthorisationRequest = AuthorisationRequestBase & { paymentRequest: PaymentRequest };
export type Payment = Extensible<Sent<Schemas['PaymentResponse'], 'id'>>;
export interface PaymentDetails {
  payments: Payment[];
}

// ---- variable recurring payments (2.6, 2.7, 2.10) -------------------------------------------------

export type VrpControlParameters = Schemas['VrpControlParameters'];
export type SweepingVrpConsentRequest = AuthorisationRequestBase &
  Pick<Schemas['VrpSweepingAuthorisationRequest'], 'controlParameters' | 'initiationDetails'>;
export type SweepingVrpConsent = AuthorisationResponse &
  Pick<Schemas['VrpSweepingAuthorisationResponse'], 'controlParameters' | 'initiationDetails'>;
export type VrpFundsConfirmationRequest = Schemas['VrpFundsConfirmationRequest'];
export type VrpFundsConfirmation = Schemas['VrpFundsConfirmationResponse'];
/** `paymentIdempotencyId` makes the submission safe to retry. */
export type VrpPaymentRequest = Extensible<Schemas['VrpSubmissionRequest'] & { reference?: string }>;
export type VrpPayment = Extensible<Sent<Schemas['VrpSubmissionResponse'], 'id'>>;

/** POST /hosted/vrp-requests/commercial: not in the spec; the upstream's public OpenAPI gives the shape. */
export type HostedVrpRequestCreate = RequestBody<'postHostedCommercialVrpRequest'>;
export type HostedVrpRequestCreated = Extensible<Answer<'postHostedCommercialVrpRequest'>>;
export type HostedVrpRequest = Extensible<Sent<Answer<'getHostedVrpRequest'>, 'requestId'>>;

// ---- notifications and webhooks (2.11, 2.12, 4.7) -------------------------------------------------

export type EventSubscription = Extensible<Schemas['EventSubscriptionResponse']>;
export type WebhookCategory = Sent<Schemas['CategoryStructure'], 'name'>;
/** `applicationId` equals the `sub-application` header when one is sent. */
export type RegisterWebhookRequest = RequestBody<'registerWebhook'>;
/** `delay`: seconds the old secret keeps signing deliveries beside the new one (the sandbox: 0..86400). */
export type ResetWebhookSecretRequest = RequestBody<'resetWebhookSecret'>;
export type Webhook = Extensible<Sent<Schemas['RegisteredWebhook'], 'id'>>;
/** `webhookSecret` is shown once: store it encrypted right away; it validates delivered events. */
export type RegisteredWebhook = Webhook & { webhookSecret: string };
