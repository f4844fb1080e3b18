import { isIP } from 'node:net';
import { Injectable } from '@nestjs/common';
import { ResetRegistryService } from './reset-registry.service.js';
import { SandboxError } from './sandbox-error.js';

/**
 * The fixture institutions (docs/sandbox.md). Their feature lists decide which operations they allow;
 * `sandbox-flaky` behaves like `sandbox-redirect` but answers a share of data calls with 500/424, and
 * `sandbox-psu-business` requires the PSU headers where the PSU starts an authorisation, and a
 * transaction range on its consents.
 */
export type AuthFlow = 'REDIRECT' | 'EMBEDDED';

export interface SandboxInstitution {
  id: string;
  name: string;
  fullName: string;
  countries: { displayName: string; countryCode2: string }[];
  environmentType: 'SANDBOX';
  credentialsType: string;
  media: { source: string; type: string }[];
  features: string[];
  /** Sandbox-only: how the PSU authorises. Not part of the wire form. */
  flow: AuthFlow;
  /** Sandbox-only: every Nth data call fails (flaky institution). */
  flakyEvery?: number;
  /** Sandbox-only: the PSU headers it requires on the calls of {@link PSU_ENDPOINTS} (spec 4, 5.5). */
  psuHeaders?: PsuHeader[];
  /** Sandbox-only: its account authorisations must name `transactionFrom` (spec 2.5: where supported). */
  requiresTransactionRange?: boolean;
}

export type PsuHeader = 'psu-id' | 'psu-corporate-id' | 'psu-ip-address';

/**
 * The calls on which an institution's PSU headers are required, by the constraints kind that lists them:
 * those that start an authorisation, made while the PSU is at the merchant's page. Data and payment
 * reads made later, without the PSU, need none.
 */
export const PSU_ENDPOINTS = [
  { kind: 'data', method: 'POST', path: '/account-auth-requests' },
  { kind: 'data', method: 'PUT', path: '/account-auth-requests' },
  { kind: 'data', method: 'PATCH', path: '/account-auth-requests' },
  { kind: 'data', method: 'POST', path: '/embedded-account-auth-requests' },
  { kind: 'payments', method: 'POST', path: '/payment-auth-requests' },
] as const;
export type PsuEndpoint = (typeof PSU_ENDPOINTS)[number];

/** The features that read data: the scopes a data consent can be granted. */
export const DATA_READ_FEATURES = [
  'ACCOUNTS',
  'ACCOUNT',
  'ACCOUNT_BALANCES',
  'ACCOUNT_TRANSACTIONS',
  'ACCOUNT_TRANSACTIONS_WITH_MERCHANT',
  'ACCOUNT_STATEMENTS',
  'ACCOUNT_STATEMENT',
  'ACCOUNT_BENEFICIARIES',
  'ACCOUNT_DIRECT_DEBITS',
  'ACCOUNT_SCHEDULED_PAYMENTS',
  'ACCOUNT_PERIODIC_PAYMENTS',
  'IDENTITY',
];

const DATA_FEATURES = [
  'INITIATE_ACCOUNT_REQUEST',
  'INITIATE_PRE_AUTHORISATION',
  'INITIATE_PRE_AUTHORISATION_ACCOUNTS',
  'INITIATE_ONETIME_PRE_AUTHORISATION_ACCOUNTS',
  'ACCOUNT_REQUEST_DETAILS',
  ...DATA_READ_FEATURES,
];

const PAYMENT_FEATURES = [
  'INITIATE_DOMESTIC_SINGLE_PAYMENT',
  'CREATE_DOMESTIC_SINGLE_PAYMENT',
  'INITIATE_SINGLE_PAYMENT_SORTCODE',
  'CREATE_SINGLE_PAYMENT_SORTCODE',
  'EXISTING_PAYMENTS_DETAILS',
  'EXISTING_PAYMENT_INITIATION_DETAILS',
  'INITIATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_SWEEPING',
  'CREATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_SWEEPING',
  'VARIABLE_RECURRING_PAYMENT_FUNDS_CONFIRMATION',
  'INITIATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_COMMERCIAL',
  'CREATE_DOMESTIC_VARIABLE_RECURRING_PAYMENT_COMMERCIAL',
];

const GB = [{ displayName: 'United Kingdom', countryCode2: 'GB' }];
const media = (id: string) => [
  { source: `https://sandbox.invalid/media/${id}/logo.png`, type: 'logo' },
  { source: `https://sandbox.invalid/media/${id}/icon.png`, type: 'icon' },
];

export const INSTITUTIONS: readonly SandboxInstitution[] = [
  {
    id: 'sandbox-redirect',
    name: 'Sandbox Redirect Bank',
    fullName: 'Sandbox Redirect Bank (redirect flow)',
    countries: GB,
    environmentType: 'SANDBOX',
    credentialsType: 'OPEN_BANKING_UK_AUTO',
    media: media('sandbox-redirect'),
    features: DATA_FEATURES,
    flow: 'REDIRECT',
  },
  {
    id: 'sandbox-embedded',
    name: 'Sandbox Embedded Bank',
    fullName: 'Sandbox Embedded Bank (embedded flow with SCA)',
    countries: GB,
    environmentType: 'SANDBOX',
    credentialsType: 'OPEN_BANKING_UK_AUTO',
    media: media('sandbox-embedded'),
    features: [
      'INITIATE_EMBEDDED_ACCOUNT_REQUEST',
      ...DATA_FEATURES.filter((f) => f !== 'INITIATE_ACCOUNT_REQUEST'),
    ],
    flow: 'EMBEDDED',
  },
  {
    id: 'sandbox-payments',
    name: 'Sandbox Payments Bank',
    fullName: 'Sandbox Payments Bank (single payments, sweeping and commercial VRP)',
    countries: GB,
    environmentType: 'SANDBOX',
    credentialsType: 'OPEN_BANKING_UK_AUTO',
    media: media('sandbox-payments'),
    features: PAYMENT_FEATURES,
    flow: 'REDIRECT',
  },
  {
    id: 'sandbox-psu-business',
    name: 'Sandbox Business Bank',
    fullName:
      'Sandbox Business Bank (redirect flow; requires psu-id, psu-corporate-id, psu-ip-address and a transaction range)',
    countries: GB,
    environmentType: 'SANDBOX',
    credentialsType: 'OPEN_BANKING_UK_AUTO',
    media: media('sandbox-psu-business'),
    features: [
      ...DATA_FEATURES,
      'INITIATE_DOMESTIC_SINGLE_PAYMENT',
      'CREATE_DOMESTIC_SINGLE_PAYMENT',
      'EXISTING_PAYMENTS_DETAILS',
    ],
    flow: 'REDIRECT',
    psuHeaders: ['psu-id', 'psu-corporate-id', 'psu-ip-address'],
    requiresTransactionRange: true,
  },
  {
    id: 'sandbox-flaky',
    name: 'Sandbox Flaky Bank',
    fullName: 'Sandbox Flaky Bank (like sandbox-redirect, with a share of 500/424 answers)',
    countries: GB,
    environmentType: 'SANDBOX',
    credentialsType: 'OPEN_BANKING_UK_AUTO',
    media: media('sandbox-flaky'),
    features: DATA_FEATURES,
    flow: 'REDIRECT',
    flakyEvery: 3,
  },
];

/**
 * Ways real banks differ that a client must survive, switched on per institution through the control API
 * (none by default): what the fixture institutions do otherwise is the common case.
 */
export interface InstitutionQuirks {
  /**
   * The bank issues account ids per consent: a new consent of the same user lists the same accounts
   * (identifications, transactions) under new ids.
   */
  accountIdsPerConsent: boolean;
  /** A completed re-authorisation keeps the expiry the consent had instead of granting a new span. */
  reauthorisationKeepsExpiry: boolean;
  /**
   * Reads of an account's transactions without the user present (no `psu-ip-address`) the bank allows a
   * day: PSD2's four, as at real banks, unless set (null: none; UnattendedReadsService).
   */
  unattendedReadsPerDay: number | null;
}

const NO_QUIRKS: InstitutionQuirks = {
  accountIdsPerConsent: false,
  reauthorisationKeepsExpiry: false,
  unattendedReadsPerDay: 4,
};

/**
 * The fixture institutions as the sandbox serves them, with their quirks. Kept whole: the list is data,
 * and the catalogue's checks read its sandbox-only fields.
 */
@Injectable()
export class InstitutionsCatalog {
  private readonly byId = new Map(INSTITUTIONS.map((i) => [i.id, i]));
  /** Data calls to the flaky institution, per consent. */
  private flakyCalls = new Map<string, number>();
  private quirks = new Map<string, InstitutionQuirks>();

  constructor(resets: ResetRegistryService) {
    resets.register(() => {
      this.flakyCalls = new Map();
      this.quirks = new Map();
    });
  }

  quirksOf(institutionId: string): InstitutionQuirks {
    return this.quirks.get(institutionId) ?? NO_QUIRKS;
  }

  /** Changes the named quirks of a known institution (until a reset or restart); answers them all. */
  /** The institution is known: the admin route answers 404 for one that is not, before this. */
  setQuirks(institutionId: string, change: Partial<InstitutionQuirks>): InstitutionQuirks {
    const named = Object.entries(change).filter(([, value]) => value !== undefined);
    const quirks = { ...this.quirksOf(institutionId), ...Object.fromEntries(named) };
    this.quirks.set(institutionId, quirks);
    return quirks;
  }

  all(): readonly SandboxInstitution[] {
    return INSTITUTIONS;
  }

  get(id: string): SandboxInstitution {
    const institution = this.byId.get(id);
    if (!institution) throw SandboxError.invalidProperty('institutionId', `Unknown institution ${id}`);
    return institution;
  }

  find(id: string): SandboxInstitution | undefined {
    return this.byId.get(id);
  }

  /** Throws the upstream's feature error unless the institution supports every one of `features`. */
  requireFeature(institutionId: string, ...features: string[]): SandboxInstitution {
    const institution = this.get(institutionId);
    for (const feature of features) {
      if (!institution.features.includes(feature))
        throw SandboxError.featureNotSupported(feature, institutionId);
    }
    return institution;
  }

  /**
   * Refuses a call of {@link PSU_ENDPOINTS} that lacks a PSU header the institution requires (or carries
   * an IP address that is not one), naming the header, as a strict upstream would.
   */
  requirePsuHeaders(
    institution: SandboxInstitution,
    endpoint: Omit<PsuEndpoint, 'kind'>,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    const applies = PSU_ENDPOINTS.some((e) => e.method === endpoint.method && e.path === endpoint.path);
    for (const header of applies ? (institution.psuHeaders ?? []) : []) {
      const value = headers[header];
      if (typeof value !== 'string' || value.trim() === '') {
        throw SandboxError.invalidProperty(header, `The ${header} header is required by ${institution.id}`);
      }
      if (header === 'psu-ip-address' && isIP(value) === 0) {
        throw SandboxError.invalidProperty(header, `The ${header} header must be an IP address`);
      }
    }
  }

  /**
   * The flaky institution's misbehaviour, deterministic so tests can rely on it: of every three data
   * calls under one consent (`key`, the consent id), the second answers 500 and the third 424. Counted
   * per consent, so one application's calls never shift another's pattern.
   */
  maybeFail(institution: SandboxInstitution, key: string): void {
    if (!institution.flakyEvery) return;
    const calls = (this.flakyCalls.get(key) ?? 0) + 1;
    this.flakyCalls.set(key, calls);
    const position = calls % institution.flakyEvery;
    // The bank's failure, labelled as the bank's: a 500 whose source is INSTITUTION.
    if (position === 2)
      throw SandboxError.internal('Sandbox Flaky Bank: simulated internal error', 'INSTITUTION');
    if (position === 0)
      throw SandboxError.institution('Sandbox Flaky Bank: the bank did not answer in time', 504);
  }

  /** The wire form (sandbox-only fields removed). */
  static view(institution: SandboxInstitution) {
    const {
      flow: _flow,
      flakyEvery: _flaky,
      psuHeaders: _psu,
      requiresTransactionRange: _range,
      ...rest
    } = institution;
    return rest;
  }
}
