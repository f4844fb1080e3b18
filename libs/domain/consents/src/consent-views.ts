import { type StoredAccount, type SyncStatusView, syncStatusView } from '#libs/domain/accounts';
import type { StoredConsent } from './consent.repository.js';
import { ConsentStatus } from './consent-status.js';

export interface ConsentView {
  id: string;
  /** ACCOUNT (financial data), PAYMENT (one single payment) or VRP_SWEEPING (payments within limits). */
  kind: string;
  userId: string;
  institutionId: string;
  /** The upstream's id of the consent, for the upstream's support and its webhooks. */
  upstreamConsentId: string;
  status: string;
  featureScope: string[];
  expiresAt: string | null;
  createdAt: string;
  authorizedAt: string | null;
  revokedAt: string | null;
  authorisationUrl?: string;
  reauthorisationUrl?: string;
  /**
   * When a completed re-authorisation did not extend the consent: no re-authorisation is asked for
   * automatically any more (consent.reauthorisation_not_extended). Gone once an authorisation extends it.
   */
  reauthorisationNotExtendedAt?: string;
  /**
   * Whether the expiry scan asks the bank to re-authorise the consent in its last days (which suspends
   * access until the user does): the merchant's choice at creation.
   */
  autoReauthorise: boolean;
  /** On a single consent only: how fresh its accounts' data is (the `sync` summary of docs/api-guide.md). */
  sync?: ConsentSyncSummary;
}

export interface ConsentSyncSummary {
  /** The least advanced state among the consent's accounts; `none` when it has no accounts. */
  status: 'none' | SyncStatusView;
  /** When the least recently synced account was last synced: every account is at least this fresh. */
  lastSyncedAt: string | null;
}

/** Worst first: the summary reports the account furthest from "synced". */
const SYNC_ORDER: readonly SyncStatusView[] = ['failed', 'pending', 'syncing', 'stopped', 'synced'];

export function summariseSync(
  accounts: { syncStatus: StoredAccount['syncStatus']; lastSyncedAt: Date | null }[],
): ConsentSyncSummary {
  if (accounts.length === 0) return { status: 'none', lastSyncedAt: null };
  const statuses = new Set(accounts.map((a) => syncStatusView(a.syncStatus)));
  const status = SYNC_ORDER.find((s) => statuses.has(s)) ?? 'pending';
  const times = accounts.map((a) => a.lastSyncedAt?.getTime());
  const oldest = times.some((t) => t === undefined) ? null : Math.min(...(times as number[]));
  return { status, lastSyncedAt: oldest === null ? null : new Date(oldest).toISOString() };
}

/**
 * The status a consent is shown with at `now`: its stored one, except that a data consent still counted
 * usable (authorised, or awaiting its re-authorisation) is EXPIRED from its `expiresAt` on, whether or
 * not the settle job has written that yet. Every read answers this, so no reader sees AUTHORIZED past
 * the expiry: the stored row catches up within a minute (ConsentSettleService), with its event.
 */
export function shownStatus(
  c: Pick<StoredConsent, 'kind' | 'status' | 'expiresAt'>,
  now: Date = new Date(),
): string {
  return isPastExpiry(c, now) ? ConsentStatus.Expired : c.status;
}

/** A usable data consent whose expiry has come: EXPIRED to every reader, whatever the row says yet. */
export function isPastExpiry(
  c: Pick<StoredConsent, 'kind' | 'status' | 'expiresAt'>,
  now: Date = new Date(),
): boolean {
  return (
    c.kind === 'ACCOUNT' &&
    (c.status === ConsentStatus.Authorised || c.status === ConsentStatus.AwaitingReauthorisation) &&
    c.expiresAt !== null &&
    c.expiresAt.getTime() <= now.getTime()
  );
}

export function toConsentView(c: StoredConsent, now: Date = new Date()): ConsentView {
  const expired = isPastExpiry(c, now);
  return {
    id: c.id,
    kind: c.kind,
    userId: c.userId,
    institutionId: c.institutionId,
    upstreamConsentId: c.upstreamConsentId,
    // As the expiry write leaves it: EXPIRED, no re-authorisation link.
    status: shownStatus(c, now),
    featureScope: c.featureScope,
    expiresAt: c.expiresAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
    authorizedAt: c.authorizedAt?.toISOString() ?? null,
    revokedAt: c.revokedAt?.toISOString() ?? null,
    ...(c.status === ConsentStatus.AwaitingAuthorisation && c.authorisationUrl
      ? { authorisationUrl: c.authorisationUrl }
      : {}),
    ...(c.reauthorisationUrl && !expired ? { reauthorisationUrl: c.reauthorisationUrl } : {}),
    ...(c.reauthorisationNotExtendedAt
      ? { reauthorisationNotExtendedAt: c.reauthorisationNotExtendedAt.toISOString() }
      : {}),
    autoReauthorise: c.autoReauthorise,
  };
}
