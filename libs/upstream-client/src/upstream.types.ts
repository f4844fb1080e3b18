/**
 * Wire types of the upstream (upstream spec §2 and 4; shapes the spec marks "not shown" follow the public
 * OpenAPI 12.13.0). Fields are optional unless the upstream always sends them: institutions differ, and
 * version 2 drops some consent fields. Amounts are JSON numbers on the wire; the library never does
 * arithmetic on them.
 */

/**
 * An enum that tolerates values it does not know: the upstream adds enum values without notice, so a
 * closed union would turn a harmless new value into a type lie. Known values still autocomplete.
 */
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

export interface Amount {
  amount: number;
  currency: string;
}

export type KnownAccountIdentificationType =
  | 'SORT_CODE'
  | 'ACCOUNT_NUMBER'
  | 'IBAN'
  | 'BBAN'
  | 'BIC'
  | 'PAN'
  | 'MASKED_PAN'
  | 'MSISDN'
  | 'BSB'
  | 'NCC'
  | 'ABA'
  | 'ABA_WIRE'
  | 'ABA_ACH'
  | 'EMAIL'
  | 'ROLL_NUMBER'
  | 'BLZ'
  | 'IFS'
  | 'CLABE'
  | 'CTN'
  | 'BRANCH_CODE'
  | 'VIRTUAL_ACCOUNT_ID';

export interface AccountIdentification {
  type: Open<KnownAccountIdentificationType>;
  identification: string;
}

export interface Party {
  name?: string;
  accountIdentifications: AccountIdentification[];
  [key: string]: unknown;
}

export type Payee = Party & { name: string };

export type KnownFeature =
  | 'INITIATE_PRE_AUTHORISATION'
  | 'INITIATE_ACCOUNT_REQUEST'
  | 'INITIATE_EMBEDDED_ACCOUNT_REQUEST'
  | 'ACCOUNTS'
  | 'ACCOUNTS_WITHOUT_BALANCE'
  | 'ACCOUNT'
  | 'ACCOUNT_WITHOUT_BALANCE'
  | 'ACCOUNT_BALANCES'
  | 'ACCOUNT_TRANSACTIONS'
  | 'ACCOUNT_TRANSACTIONS_WITH_MERCHANT'
  | 'ACCOUNT_STATEMENTS'
  | 'ACCOUNT_STATEMENT'
  | 'ACCOUNT_BENEFICIARIES'
  | 'INITIATE_DOMESTIC_SINGLE_PAYMENT'
  | 'CREATE_DOMESTIC_SINGLE_PAYMENT'
  | 'EXISTING_PAYMENTS_DETAILS'
  | 'EXISTING_PAYMENT_INITIATION_DETAILS'
  | 'CREATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_SWEEPING'
  | 'INITIATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_SWEEPING'
  | 'VARIABLE_RECURRING_PAYMENT_FUNDS_CONFIRMATION';
export type Feature = Open<KnownFeature>;

export interface PsuHeaders {
  /** `psu-id`: the user's login id for a personal account (institution-dependent). */
  id?: string;
  /** `psu-corporate-id`: the login id for a business account. */
  corporateId?: string;
  /** `psu-ip-address`. */
  ipAddress?: string;
}

// ---- applications (2.2) ---------------------------------------------------------------------------

export interface Application {
  id: string;
  name?: string;
  merchantCategoryCode?: number | string;
  ppcUserGroup?: string;
  callbackUrls?: string[];
  isContractPresent?: boolean;
  rootApplicationId?: string;
}

export interface ApplicationsQuery {
  applicationIds?: string[];
  offset?: number;
  limit?: number;
  sort?: string;
}

// ---- users (2.3) ----------------------------------------------------------------------------------

export interface User {
  uuid: string;
  applicationUuid?: string;
  applicationUserId?: string;
  referenceId?: string;
  createdAt?: string;
  institutionConsents?: { institutionId: string }[];
  vopOptOut?: boolean;
}

export interface NewUser {
  applicationUserId?: string;
  referenceId?: string;
  vopOptOut?: boolean;
}

/** One operation of the JSON-patch of PATCH /users/{userUuid}: all three fields required, values strings. */
export interface UserPatchOperation {
  op: Open<'add' | 'replace'>;
  path: Open<'/applicationUserId' | '/referenceId' | '/vopOptOut'>;
  value: string;
}

export type DeleteStatus = Open<'SUCCESS' | 'FAILED'>;

export interface ConsentDeleteResult {
  id: string;
  deleteStatus?: DeleteStatus;
  institutionId?: string;
  institutionConsentId?: string;
  creationDate?: string;
}

export interface UserDeleteResult {
  id: string;
  deleteStatus?: DeleteStatus;
  creationDate?: string;
  userConsents?: ConsentDeleteResult[];
}

// ---- institutions ---------------------------------------------------------------------------------

export interface Institution {
  id: string;
  name?: string;
  fullName?: string;
  countries?: { displayName?: string; countryCode2?: string; bic?: string }[];
  environmentType?: Open<'SANDBOX' | 'MOCK' | 'LIVE'>;
  credentialsType?: string;
  media?: { source?: string; type?: string }[];
  features?: Feature[];
  [key: string]: unknown;
}

/**
 * One rule of an institution's data or payment constraints (the upstream's public OpenAPI,
 * `DataConstraintsResponse`, `PaymentConstraintsResponse`): JSON schemas of what one endpoint requires.
 */
export interface InstitutionConstraint {
  institutionId: string;
  institutionCountryCode?: string;
  endpointPath?: string;
  endpointMethod?: string;
  paymentType?: string;
  request?: { headers?: ConstraintSchema; body?: ConstraintSchema };
  [key: string]: unknown;
}

export interface ConstraintSchema {
  required?: string[];
  properties?: Record<string, { description?: string; [key: string]: unknown }>;
  [key: string]: unknown;
}

export interface ConstraintsQuery {
  institutionIds: string[];
  institutionCountryCode: string;
  /** Payments only, and mandatory there (the upstream's OpenAPI): the payment type asked about. */
  paymentType?: string;
  endpointPath?: string;
  endpointMethod?: string;
}

// ---- consents (2.4, 3) ----------------------------------------------------------------------------

export type KnownConsentStatus =
  | 'AWAITING_AUTHORIZATION'
  | 'AWAITING_FURTHER_AUTHORIZATION'
  | 'AWAITING_RE_AUTHORIZATION'
  | 'AUTHORIZED'
  | 'CONSUMED'
  | 'REJECTED'
  | 'REVOKED'
  | 'FAILED'
  | 'EXPIRED'
  | 'UNKNOWN'
  | 'INVALID'
  | 'AWAITING_DECOUPLED_PRE_AUTHORIZATION'
  | 'AWAITING_PRE_AUTHORIZATION'
  | 'PRE_AUTHORIZED'
  | 'AWAITING_DECOUPLED_AUTHORIZATION'
  | 'AWAITING_SCA_METHOD'
  | 'AWAITING_SCA_CODE';
export type ConsentStatus = Open<KnownConsentStatus>;

export type ScaMethodType = Open<'CHIP_OTP' | 'PHOTO_OTP' | 'PUSH_OTP' | 'SMS_OTP'>;

export interface ScaMethod {
  id: string;
  type?: ScaMethodType;
  description?: string;
  [key: string]: unknown;
}

export interface Consent {
  id: string;
  userUuid?: string;
  applicationUserId?: string;
  referenceId?: string;
  institutionId: string;
  status: ConsentStatus;
  createdAt?: string;
  authorizedAt?: string;
  expiresAt?: string;
  timeToExpire?: string;
  timeToExpireInMillis?: number;
  transactionFrom?: string;
  transactionTo?: string;
  featureScope?: Feature[];
  state?: string;
  institutionConsentId?: string;
  /** Secret: send it only in the `consent` header, store it encrypted, never log it. */
  consentToken?: string;
  scaMethods?: ScaMethod[];
  lastConfirmedAt?: string;
  reconfirmBy?: string;
  isDeletedByInstitution?: boolean;
  [key: string]: unknown;
}

/** An authorisation in progress: a consent plus where to send the user. */
export interface AuthorisationResponse extends Consent {
  authorisationUrl?: string;
  qrCodeUrl?: string;
}

export interface AccountRequestDetails {
  featureScope?: Feature[];
  expiresAt?: string;
  transactionFrom?: string;
  transactionTo?: string;
  [key: string]: unknown;
}

/** Spec 2.5: `userUuid` or `applicationUserId` is required; the type enforces one of them. */
export type UserReference =
  { userUuid: string; applicationUserId?: string } | { applicationUserId: string; userUuid?: string };

/** What every authorisation request (account, payment, VRP) has besides its own details (upstream spec §2.5). */
export type AuthorisationRequestBase = UserReference & {
  institutionId: string;
  callback?: string;
  /** Makes the callback receive a `oneTimeToken` instead of the consent token; needs `callback`. */
  oneTimeToken?: boolean;
  forwardParameters?: string[];
};

export type AccountAuthorisationRequest = AuthorisationRequestBase & {
  accountRequest?: AccountRequestDetails;
};

export interface UserCredentials {
  id: string;
  corporateId?: string;
  password: string;
}

export type EmbeddedAccountAuthorisationRequest = AccountAuthorisationRequest & {
  userCredentials: UserCredentials;
};

/** The second and third embedded steps: the chosen SCA method, then the SCA code. */
export type EmbeddedAuthorisationUpdate =
  | { institutionId: string; selectedScaMethod: { id: string; type?: ScaMethodType; description?: string } }
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

export type KnownAccountType =
  | 'CASH_TRADING'
  | 'CASH_INCOME'
  | 'CASH_PAYMENT'
  | 'CHARGE_CARD'
  | 'CHARGES'
  | 'COMMISSION'
  | 'CREDIT_CARD'
  | 'CURRENT'
  | 'E_MONEY'
  | 'LIMITED_LIQUIDITY_SAVINGS_ACCOUNT'
  | 'LOAN'
  | 'MARGINAL_LENDING'
  | 'MONEY_MARKET'
  | 'MORTGAGE'
  | 'NON_RESIDENT_EXTERNAL'
  | 'OTHER'
  | 'OVERDRAFT'
  | 'OVERNIGHT_DEPOSIT'
  | 'PREPAID_CARD'
  | 'SALARY'
  | 'SAVINGS'
  | 'SETTLEMENT'
  | 'TAX'
  | 'UNKNOWN';

export type KnownBalanceType =
  | 'CLOSING_AVAILABLE'
  | 'CLOSING_BOOKED'
  | 'CLOSING_CLEARED'
  | 'EXPECTED'
  | 'FORWARD_AVAILABLE'
  | 'INFORMATION'
  | 'INTERIM_AVAILABLE'
  | 'INTERIM_BOOKED'
  | 'INTERIM_CLEARED'
  | 'OPENING_AVAILABLE'
  | 'OPENING_BOOKED'
  | 'OPENING_CLEARED'
  | 'PREVIOUSLY_CLOSED_BOOKED'
  | 'AUTHORISED'
  | 'OTHER'
  | 'UNKNOWN';

export interface AccountBalance {
  type?: Open<KnownBalanceType>;
  dateTime?: string;
  balanceAmount?: Amount;
  creditLineIncluded?: boolean;
  creditLines?: { type?: string; creditLineAmount?: Amount }[];
}

export interface Account {
  id: string;
  type?: string;
  description?: string;
  balance?: number;
  currency?: string;
  usageType?: Open<'PERSONAL' | 'BUSINESS' | 'OTHER' | 'UNKNOWN'>;
  accountType?: Open<KnownAccountType>;
  nickname?: string;
  details?: string;
  accountNames?: { name: string }[];
  accountIdentifications?: AccountIdentification[];
  accountBalances?: AccountBalance[];
  [key: string]: unknown;
}

export interface Balances {
  mainBalanceAmount?: Amount;
  balances?: AccountBalance[];
}

export interface TransactionsQuery {
  from?: string;
  before?: string;
  /** 1..1000; the upstream's default is 1000. */
  limit?: number;
  sort?: Open<'date' | '-date'>;
  offset?: number;
  /** Enrichment to add (version 2 adds `enrichment` only when asked). */
  with?: Open<'categorisation' | 'merchant'>[];
}

export type StatementsQuery = Omit<TransactionsQuery, 'with'>;

export interface RealTimeTransactionsQuery {
  from?: string;
  before?: string;
}

export interface Transaction {
  id?: string;
  date?: string;
  bookingDateTime?: string;
  valueDateTime?: string;
  status?: Open<'BOOKED' | 'PENDING'>;
  amount?: number;
  currency?: string;
  transactionAmount?: Amount;
  grossAmount?: Amount;
  currencyExchange?: {
    sourceCurrency?: string;
    targetCurrency?: string;
    unitCurrency?: string;
    exchangeRate?: number;
  };
  chargeDetails?: { chargeAmount?: Amount };
  reference?: string;
  description?: string;
  statementReferences?: { value: string }[];
  transactionInformation?: string[];
  addressDetails?: { addressLine?: string };
  isoBankTransactionCode?: {
    domainCode?: { code?: string; name?: string };
    familyCode?: { code?: string; name?: string };
    subFamilyCode?: { code?: string; name?: string };
  };
  proprietaryBankTransactionCode?: { code?: string; issuer?: string };
  balance?: { type?: Open<KnownBalanceType>; balanceAmount?: Amount };
  payeeDetails?: Party;
  payerDetails?: Party;
  merchant?: { merchantName?: string; merchantCategoryCode?: string };
  enrichment?: {
    categorisation?: { categories?: string[]; source?: string };
    transactionHash?: { hash: string };
    cleansedDescription?: string;
    merchant?: { merchantName?: string; parentGroup?: string };
    location?: string;
    paymentProcessor?: string;
    correctedDate?: string;
  };
  supplementaryData?: Record<string, unknown>;
  transactionMutability?: Open<'Mutable' | 'Immutable'>;
  [key: string]: unknown;
}

export interface Statement {
  id: string;
  startDateTime?: string;
  endDateTime?: string;
  creationDateTime?: string;
}

export interface Beneficiary {
  id: string;
  trusted?: boolean;
  reference?: string;
  payee?: Party;
}

export interface CategorisationRequest {
  categorisationType: Open<'consumer' | 'business'>;
  /** ISO 3166-1 alpha-2; required by the upstream. */
  countryCode: string;
  from?: string;
  before?: string;
}

export interface CategorisationCreated {
  categorisationId: string;
  [key: string]: unknown;
}

// ---- payments -------------------------------------------------------------------------------------

export type KnownPaymentStatus =
  | 'PENDING'
  | 'FAILED'
  | 'DECLINED'
  | 'COMPLETED'
  | 'COMPLETED_SETTLEMENT_IN_PROCESS'
  | 'EXPIRED'
  | 'UNKNOWN'
  | 'ACTIVE'
  | 'INACTIVE';
export type PaymentStatus = Open<KnownPaymentStatus>;

export type PaymentType = Open<
  | 'DOMESTIC_PAYMENT'
  | 'DOMESTIC_INSTANT_PAYMENT'
  | 'DOMESTIC_VARIABLE_RECURRING_PAYMENT'
  | 'DOMESTIC_SCHEDULED_PAYMENT'
  | 'DOMESTIC_PERIODIC_PAYMENT'
  | 'INTERNATIONAL_PAYMENT'
  | 'INTERNATIONAL_SCHEDULED_PAYMENT'
  | 'INTERNATIONAL_PERIODIC_PAYMENT'
  | 'BULK_PAYMENT'
>;

export interface PaymentRequest {
  /** Makes the payment safe to retry: the upstream executes one payment per id. */
  paymentIdempotencyId: string;
  type: PaymentType;
  amount: Amount;
  payee: Payee;
  payer?: Party;
  reference?: string;
  paymentDateTime?: string;
  [key: string]: unknown;
}

export type PaymentAuthorisationRequest = AuthorisationRequestBase & {
  paymentRequest: PaymentRequest;
};

export interface PaymentStatusDetails {
  status?: PaymentStatus;
  statusReason?: string;
  statusReasonDescription?: string;
  statusUpdateDate?: string;
  isoStatus?: { code?: string; name?: string };
}

export interface Payment {
  id: string;
  paymentIdempotencyId?: string;
  paymentLifecycleId?: string;
  institutionConsentId?: string;
  status?: PaymentStatus;
  statusDetails?: PaymentStatusDetails;
  payer?: Party;
  payeeDetails?: Party;
  reference?: string;
  amount?: number;
  currency?: string;
  amountDetails?: Amount;
  createdAt?: string;
  [key: string]: unknown;
}

export interface PaymentDetails {
  payments: Payment[];
}

// ---- variable recurring payments (2.6, 2.7, 2.10) -------------------------------------------------

export interface VrpControlParameters {
  psuAuthenticationMethods?: Open<'SCA_REQUIRED' | 'SCA_NOT_REQUIRED'>[];
  maxAmountPerPayment?: Amount;
  periodicLimits?: {
    frequency: Open<'DAILY' | 'WEEKLY' | 'FORTNIGHTLY' | 'MONTHLY' | 'HALF_YEARLY' | 'YEARLY'>;
    alignment?: Open<'CONSENT' | 'CALENDAR'>;
    totalMaxAmount: Amount;
  }[];
  validFrom?: string;
  validTo?: string;
}

export interface VrpInitiationDetails {
  reference?: string;
  payee?: Party;
  payer?: Party;
  [key: string]: unknown;
}

export type SweepingVrpConsentRequest = AuthorisationRequestBase & {
  controlParameters: VrpControlParameters;
  initiationDetails: VrpInitiationDetails;
};

export interface SweepingVrpConsent extends AuthorisationResponse {
  controlParameters?: VrpControlParameters;
  initiationDetails?: VrpInitiationDetails;
}

export interface VrpFundsConfirmationRequest {
  reference?: string;
  paymentAmount: Amount;
}

export interface VrpFundsConfirmation {
  id?: string;
  reference?: string;
  paymentAmount: Amount;
  fundsAvailable: { fundsAvailable: boolean; fundsAvailableAt?: string };
}

export interface VrpPaymentRequest {
  /** Makes the submission safe to retry. */
  paymentIdempotencyId: string;
  psuAuthenticationMethod: Open<'SCA_REQUIRED' | 'SCA_NOT_REQUIRED'>;
  paymentAmount: Amount;
  psuInteractionType?: string;
  reference?: string;
  [key: string]: unknown;
}

export interface VrpPayment {
  id: string;
  paymentIdempotencyId?: string;
  paymentLifecycleId?: string;
  institutionConsentId?: string;
  status?: PaymentStatus;
  statusDetails?: PaymentStatusDetails;
  initiationDetails?: VrpInitiationDetails;
  submissionDetails?: { reference?: string; payee?: Party; paymentAmount?: Amount };
  [key: string]: unknown;
}

/**
 * POST /hosted/vrp-requests/commercial: not in the spec; the upstream's public OpenAPI
 * (postHostedCommercialVrpRequest) gives the shape.
 */
export interface HostedVrpRequestCreate {
  applicationUserId: string;
  institutionIdentifiers: { institutionId: string; institutionCountryCode?: string };
  controlParameters: {
    maxAmountPerPayment: Amount;
    periodicLimit: { frequency: string; totalMaxAmount: Amount };
    validFrom?: string;
    validTo?: string;
  };
  initiationDetails?: VrpInitiationDetails;
  /** Where the hosted page sends the user once they have decided. */
  redirectUrl: string;
  /** A one-time token on that redirect instead of the consent token (the merchant's page must not see it). */
  oneTimeToken?: boolean;
  riskDetails: {
    paymentContextCode: string;
    paymentPurposeCode: string;
    categoryPurposeCode: string;
    merchantCustomerId: string;
    isPayeePrepopulated: boolean;
    payeeAccountType?: string;
  };
}

export interface HostedVrpRequestCreated {
  requestId: string;
  hostedUrl: string;
  institutionIdentifiers?: { institutionId?: string; institutionCountryCode?: string };
  createdAt?: string;
  authorisationExpiresAt?: string;
  [key: string]: unknown;
}

export interface HostedVrpRequest {
  requestType?: Open<'vrp'>;
  requestId: string;
  applicationId?: string;
  userId?: string;
  applicationUserId?: string;
  tppRedirectUrl?: string;
  createdAt?: string;
  institutionIdentifiers?: { institutionId?: string; institutionCountryCode?: string };
  status?: {
    currentStatus?: string;
    statusUpdatedAt?: string;
    tppNotified?: boolean;
    qrScanned?: boolean;
    errorCode?: string | null;
  };
  result?: { consentId?: string; consentToken?: string };
  [key: string]: unknown;
}

// ---- notifications and webhooks (2.11, 2.12, 4.7) -------------------------------------------------

export interface EventSubscription {
  eventTypeId: string;
  applicationId?: string;
  created?: string;
  notification?: { type?: Open<'WEBHOOK'>; url?: string };
  [key: string]: unknown;
}

export interface WebhookCategory {
  name: string;
  description?: string;
}

export interface RegisterWebhookRequest {
  /** Equal to the `sub-application` header when one is sent. */
  applicationId: string;
  categories: string[];
  callbackUrl: { main: { url: string }; backup?: { url: string } };
  metadata?: Record<string, string>;
}

export interface ResetWebhookSecretRequest {
  /** Seconds the old secret keeps signing deliveries beside the new one (the sandbox accepts 0..86400). */
  delay: number;
}

export interface Webhook {
  id: string;
  applicationId?: string;
  categories?: string[];
  callbackUrl?: { main?: { url: string }; backup?: { url: string } };
  metadata?: Record<string, string>;
  [key: string]: unknown;
}

export interface RegisteredWebhook extends Webhook {
  /** Shown once: store it encrypted right away; it validates delivered events. */
  webhookSecret: string;
}
