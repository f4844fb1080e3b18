import {
  checkPsuHeaders,
  type ConnectionFlow,
  FLOW_FEATURE,
  type InstitutionsService,
} from '#libs/domain/institutions';
import { DomainError, ErrorCode, invalidRequest } from '#libs/errors';
import { INSTANT_FORMS, parseInstant } from '#libs/time';
import type { AccountRequestDetails, PsuHeaders } from '#libs/upstream-client';

/** The longest a financial-data consent lasts (upstream spec §8): the expiry when nothing else names one. */
export const MAX_DATA_CONSENT_DAYS = 90;
const DAY_MS = 86_400_000;

/**
 * The data features this service reads for a merchant (accounts, balances, transactions, statements,
 * beneficiaries): the scopes a consent asks for when the merchant names none, as far as the institution
 * offers them. Asking for no more than is read keeps the bank's consent screen honest.
 */
export const SERVED_DATA_FEATURES: readonly string[] = [
  'ACCOUNTS',
  'ACCOUNT',
  'ACCOUNTS_WITHOUT_BALANCE',
  'ACCOUNT_WITHOUT_BALANCE',
  'ACCOUNT_BALANCES',
  'ACCOUNT_TRANSACTIONS',
  'ACCOUNT_TRANSACTIONS_WITH_MERCHANT',
  'ACCOUNT_STATEMENTS',
  'ACCOUNT_STATEMENT',
  'ACCOUNT_BENEFICIARIES',
];

/** The scopes under which a bank lets transactions be read: a consent holding neither has none to sync. */
export const TRANSACTION_FEATURES: readonly string[] = [
  'ACCOUNT_TRANSACTIONS',
  'ACCOUNT_TRANSACTIONS_WITH_MERCHANT',
];

/**
 * Why a consent of these scopes is not synced, or undefined when it covers transactions: the bank
 * refuses their reading (403), so a sync could only fail, again and again, for a reason no retry mends.
 */
export function transactionsNotCovered(scopes: readonly string[]): string | undefined {
  if (scopes.some((scope) => TRANSACTION_FEATURES.includes(scope))) return undefined;
  return (
    `The consent does not cover transactions (its scopes: ${scopes.join(', ') || 'none'}), so its accounts ` +
    `are not synced; to sync them, connect again with the scope ACCOUNT_TRANSACTIONS.`
  );
}

/** The terms a merchant asks of a consent (all optional: see {@link accountTerms} for the defaults). */
export interface ConsentTerms {
  scopes?: string[];
  expiresAt?: string;
  transactionsFrom?: string;
  transactionsTo?: string;
}

/**
 * How far back a consent's transaction range starts when the bank requires one and the merchant names
 * none: the history a merchant would expect of a first sync; the bank grants what it keeps of it.
 */
export const DEFAULT_RANGE_DAYS = 730;

/** What {@link accountTerms} needs of the institution asked. */
export interface OfferedInstitution {
  id: string;
  features: readonly string[];
  /** Its consents must name a transaction range. */
  transactionRange?: boolean;
}

/** The upstream's own answer to a flow a bank lacks, given before it is asked. */
const unsupported = (institutionId: string, what: string) =>
  new DomainError(
    ErrorCode.FEATURE_UNSUPPORTED,
    `The institution ${institutionId} ${what}. GET /v1/institutions lists each bank's flows and features.`,
    { details: [{ field: 'institutionId', issue: 'does not offer this flow or feature' }] },
  );

/** A term's date by the API's one rule (the input validator applies the same; this guards other callers). */
function parseDate(field: string, value: string | undefined): Date | null {
  if (!value) return null;
  const date = parseInstant(value);
  if (date) return date;
  throw invalidRequest([{ field, issue: `must be ${INSTANT_FORMS}` }]);
}

/**
 * The consent details every account authorisation sends (upstream spec §2.5: scopes and an expiry are
 * mandatory): the merchant's scopes, each one the institution offers, else the institution's share of
 * {@link SERVED_DATA_FEATURES}; the merchant's expiry capped at 90 days from now, else 90 days from now;
 * the merchant's transaction range when given, and at a bank that requires one, the rest of it by default
 * ({@link DEFAULT_RANGE_DAYS} back, up to the expiry). Refused here, before the bank is asked, when they cannot be.
 */
export function accountTerms(
  institution: OfferedInstitution,
  flow: ConnectionFlow,
  terms: ConsentTerms,
  now: Date,
) {
  const offered = new Set(institution.features);
  if (!offered.has(FLOW_FEATURE[flow])) {
    throw unsupported(institution.id, `does not offer the ${flow.toLowerCase()} flow`);
  }
  const missing = terms.scopes?.filter((scope) => !offered.has(scope)) ?? [];
  if (missing.length > 0) {
    throw invalidRequest([
      { field: 'scopes', issue: `${missing.join(', ')} not offered by institution ${institution.id}` },
    ]);
  }
  const scopes = terms.scopes ?? SERVED_DATA_FEATURES.filter((feature) => offered.has(feature));
  if (scopes.length === 0) throw unsupported(institution.id, 'offers none of the data this service reads');
  const latest = new Date(now.getTime() + MAX_DATA_CONSENT_DAYS * DAY_MS);
  const asked = parseDate('expiresAt', terms.expiresAt);
  if (asked && asked <= now) throw invalidRequest([{ field: 'expiresAt', issue: 'must be in the future' }]);
  const expiresAt = asked && asked < latest ? asked : latest;
  const askedFrom = parseDate('transactionsFrom', terms.transactionsFrom);
  const askedTo = parseDate('transactionsTo', terms.transactionsTo);
  // Spec 2.5: the range is mandatory where the bank takes one; then ours fills what the merchant left out.
  const transactionsFrom =
    askedFrom ??
    (institution.transactionRange ? new Date(now.getTime() - DEFAULT_RANGE_DAYS * DAY_MS) : null);
  const transactionsTo = askedTo ?? (institution.transactionRange ? expiresAt : null);
  if (transactionsFrom && transactionsTo && transactionsFrom > transactionsTo) {
    throw invalidRequest([{ field: 'transactionsTo', issue: 'must not be before transactionsFrom' }]);
  }
  const accountRequest: AccountRequestDetails = {
    featureScope: scopes,
    expiresAt: expiresAt.toISOString(),
    ...(transactionsFrom ? { transactionFrom: transactionsFrom.toISOString() } : {}),
    ...(transactionsTo ? { transactionTo: transactionsTo.toISOString() } : {}),
  };
  return { scopes, dates: { expiresAt, transactionsFrom, transactionsTo }, accountRequest };
}

/**
 * {@link accountTerms} for the institution by id, known to our cache or to the upstream (else a 400),
 * once the PSU headers it requires to connect are there.
 */
export async function accountTermsAt(
  institutions: InstitutionsService,
  institutionId: string,
  flow: ConnectionFlow,
  terms: ConsentTerms,
  psu: PsuHeaders,
  now = new Date(),
) {
  const institution = await institutions.offered(institutionId);
  if (!institution) {
    throw invalidRequest([
      { field: 'institutionId', issue: `${institutionId} is not an institution the upstream offers` },
    ]);
  }
  const asked = accountTerms(institution, flow, terms, now);
  checkPsuHeaders(institution, 'connect', psu);
  return asked;
}
