import type { ConsentTokenClaims } from './consent-token.js';
import type { Published } from './published-shapes.js';

export type ConsentKind = 'ACCOUNT' | 'PAYMENT' | 'VRP_SWEEPING';

/** Data consents live at most 90 days (upstream spec §1, rule 2). */
export const MAX_DATA_CONSENT_MS = 90 * 24 * 3600 * 1000;

/** A single-payment consent must be used within a day of its authorisation. */
export const PAYMENT_CONSENT_WINDOW_MS = 24 * 3600 * 1000;

/** The token expiry of a consent without one (a VRP mandate with no validTo). */
export const UNLIMITED_MS = 10 * 365 * 24 * 3600 * 1000;

export interface ScaMethod {
  id: string;
  type: string;
  description: string;
}

/** One consent as the sandbox keeps it; `view()` turns it into the wire form (upstream spec §2.4). */
export interface ConsentRecord {
  id: string;
  kind: ConsentKind;
  applicationId: string;
  userUuid: string;
  applicationUserId?: string;
  /** Whose bank data the consent shows, once its user was renamed (see `FinancialDataStore.seedOf`). */
  dataKey?: string;
  referenceId?: string;
  institutionId: string;
  status: string;
  createdAt: string;
  authorizedAt?: string;
  expiresAt?: string;
  transactionFrom?: string;
  transactionTo?: string;
  featureScope: string[];
  institutionConsentId: string;
  state?: string;
  callback?: string;
  oneTimeToken: boolean;
  forwardParameters?: unknown[];
  consentToken?: string;
  authorisationUrl?: string;
  scaMethods?: ScaMethod[];
  selectedScaMethod?: ScaMethod;
  /** Kind-specific request data (payment request, VRP control parameters, …), owned by that kind's module. */
  details?: Record<string, unknown>;
  /** Single-use payment consents: when the payment used it. */
  consumedAt?: string;
  /** Counts authorisations: 0 for the first token, +1 for each re-authorisation's. */
  generation?: number;
}

function isoDuration(ms: number): string {
  if (ms <= 0) return 'PT0S';
  const totalSeconds = Math.floor(ms / 1000);
  const days = Math.floor(totalSeconds / 86400);
  const hours = Math.floor((totalSeconds % 86400) / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const time = `${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}${seconds ? `${seconds}S` : ''}`;
  return `P${days ? `${days}D` : ''}${time ? `T${time}` : days ? '' : 'T0S'}`;
}

/** The wire form (upstream spec §2.4); version 2 drops the fields upstream spec §9 lists. */
export function consentView(record: ConsentRecord, nowMs: number, apiVersion: '1' | '2.0-ALPHA' = '1') {
  const remaining = record.expiresAt ? Date.parse(record.expiresAt) - nowMs : undefined;
  const base: Published<'AccountAuthorisationResponse'> &
    Pick<Published<'EmbeddedAccountAuthorisationResponse'>, 'scaMethods' | 'selectedScaMethod'> = {
    id: record.id,
    userUuid: record.userUuid,
    applicationUserId: record.applicationUserId,
    referenceId: record.referenceId,
    institutionId: record.institutionId,
    status: record.status,
    createdAt: record.createdAt,
    transactionFrom: record.transactionFrom,
    transactionTo: record.transactionTo,
    expiresAt: record.expiresAt,
    timeToExpireInMillis: remaining !== undefined ? Math.max(0, remaining) : undefined,
    timeToExpire: remaining !== undefined ? isoDuration(remaining) : undefined,
    featureScope: record.featureScope,
    consentToken: record.status === 'AUTHORIZED' ? record.consentToken : undefined,
    state: record.state,
    authorizedAt: record.authorizedAt,
    institutionConsentId: record.institutionConsentId,
    authorisationUrl: record.status.startsWith('AWAITING') ? record.authorisationUrl : undefined,
    scaMethods: record.scaMethods,
    selectedScaMethod: record.selectedScaMethod,
  };
  if (apiVersion === '2.0-ALPHA') {
    for (const field of [
      'referenceId',
      'timeToExpire',
      'timeToExpireInMillis',
      'expiresAt',
      'authorizedAt',
      'featureScope',
      'transactionFrom',
      'transactionTo',
    ] as const) {
      delete base[field];
    }
  }
  return Object.fromEntries(Object.entries(base).filter(([, v]) => v !== undefined));
}

/** The consent a token from before a restart describes, as it was authorised. */
export function recordFromClaims(claims: ConsentTokenClaims, token: string): ConsentRecord {
  // A data consent never outlives 90 days, whatever a token claims.
  const exp =
    claims.knd === 'ACCOUNT' ? Math.min(claims.exp, claims.iat + MAX_DATA_CONSENT_MS / 1000) : claims.exp;
  return {
    id: claims.sub,
    generation: claims.gen,
    kind: claims.knd,
    applicationId: claims.app,
    userUuid: claims.uid,
    applicationUserId: claims.aui,
    institutionId: claims.ins,
    status: 'AUTHORIZED',
    createdAt: new Date(claims.iat * 1000).toISOString(),
    authorizedAt: new Date(claims.iat * 1000).toISOString(),
    expiresAt: (exp - claims.iat) * 1000 >= UNLIMITED_MS ? undefined : new Date(exp * 1000).toISOString(),
    transactionFrom: claims.tf,
    transactionTo: claims.tt,
    details: claims.det,
    featureScope: claims.scp,
    institutionConsentId: `sbx-${claims.sub.slice(0, 18)}`,
    oneTimeToken: false,
    consentToken: token,
  };
}

/**
 * Where the PSU authorises a consent of any kind: the sandbox's hosted "bank" page. Every flow that needs
 * a redirect sets `authorisationUrl` with this, and the page's decision completes the consent.
 */
export function authorisationUrlFor(publicUrl: string, consentId: string): string {
  return `${publicUrl}/sandbox/bank/consents/${consentId}`;
}
