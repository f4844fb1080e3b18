import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { MerchantId } from '#libs/context';
import type { Prisma } from '#libs/database';
import { AccountPlacementRepository } from '#libs/domain/accounts';
import { type AppLogger, LOGGER } from '#libs/observability';
import {
  type Account as UpstreamAccount,
  type Consent,
  UPSTREAM_CLIENT,
  type UpstreamClient,
  UpstreamError,
} from '#libs/upstream-client';
import type { StoredConsent } from './consent.repository.js';
import { ConsentReadingStartService } from './consent-reading-start.service.js';
import { ConsentStateRepository } from './consent-state.repository.js';
import { ConsentStatus, type TransitionResult } from './consent-status.js';
import { MAX_DATA_CONSENT_DAYS } from './consent-terms.js';
import { ConsentTokenVault } from './consent-token.vault.js';

const DAY_MS = 86_400_000;

/**
 * When the authorised consent expires. The upstream's word first; version 2 of its interface omits
 * `expiresAt` on GET /consents (upstream spec §9), so then what we asked for when the terms were set; failing
 * both, the longest a bank may grant, counted from the authorisation. A re-authorisation's old expiry is
 * never kept: the new token has a new span.
 */
export function expiryOf(
  authorised: Pick<Consent, 'expiresAt'>,
  consent: Pick<StoredConsent, 'status' | 'expiresAt'>,
  authorizedAt: Date,
): Date {
  if (authorised.expiresAt) return new Date(authorised.expiresAt);
  const asked = consent.status === ConsentStatus.AwaitingReauthorisation ? null : consent.expiresAt;
  return asked ?? new Date(authorizedAt.getTime() + MAX_DATA_CONSENT_DAYS * DAY_MS);
}

/**
 * The one way an authorised consent is stored, for the redirect callback, the embedded steps and the
 * embedded poll alike: the accounts read from the upstream, then in one transaction the token sealed
 * (bound to the row id) with the upstream's terms and the accounts placed under the consent, due for a
 * sync; then their first sync is requested at once.
 */
/** A payment consent lasts as long as the bank says (a VRP consent's validTo was asked for at creation). */
function storedExpiry(authorised: Consent, consent: StoredConsent, authorizedAt: Date): Date | null {
  if (consent.kind === 'ACCOUNT') return expiryOf(authorised, consent, authorizedAt);
  return authorised.expiresAt ? new Date(authorised.expiresAt) : consent.expiresAt;
}

@Injectable()
export class ConsentAuthoriserService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly placement: AccountPlacementRepository,
    private readonly state: ConsentStateRepository,
    private readonly vault: ConsentTokenVault,
    private readonly reading: ConsentReadingStartService,
  ) {}

  /** `userAddress`: the user is here (back from the bank in their browser); the first syncs read for them. */
  async store(
    merchantId: MerchantId,
    consent: StoredConsent,
    authorised: Consent,
    subApplication: string | undefined,
    userAddress?: string,
  ): Promise<TransitionResult> {
    const token = authorised.consentToken;
    if (!token) throw new Error('The authorised consent carried no token');
    const authorizedAt = authorised.authorizedAt ? new Date(authorised.authorizedAt) : new Date();
    // A payment consent has no accounts to read or sync: its token is all there is to keep.
    const listed =
      consent.kind === 'ACCOUNT' ? await this.fetchAccounts(consent, token, subApplication) : null;
    const expiresAt = storedExpiry(authorised, consent, authorizedAt);
    const terms = {
      ...this.vault.seal(token, consent.id),
      authorizedAt,
      expiresAt,
      featureScope: authorised.featureScope ?? consent.featureScope,
      institutionConsentId: authorised.institutionConsentId ?? null,
      reauthorisationNotExtended: this.notExtended(consent, expiresAt),
    };
    // The accounts are placed in the authorisation's own transaction: they leave an earlier consent only
    // if this one is authorised (not revoked meanwhile, nor a duplicate callback), and become readable
    // with the status a poller waits for. The user's accounts at this bank under an earlier consent come
    // to this one (their ids and history with them): a reconnection, not new accounts.
    const owner = {
      userId: consent.userId,
      consentId: consent.id,
      institutionId: consent.institutionId,
    };
    const place = listed
      ? (tx: Prisma.TransactionClient) =>
          this.placement.placeWithin(merchantId, tx, owner, listed, { approvedAt: authorizedAt })
      : undefined;
    let result: TransitionResult;
    try {
      result = await this.state.markAuthorised(merchantId, consent.id, terms, undefined, place);
    } catch (error) {
      if (!place) throw error;
      // The consent is authorised either way; the first background sync places the accounts again.
      this.logger.warn(
        { consentId: consent.id, err: error },
        'consent authorised: storing its accounts failed; left to the background sync',
      );
      result = await this.state.markAuthorised(merchantId, consent.id, terms);
    }
    if (result.applied && consent.kind === 'ACCOUNT') {
      await this.reading.start(merchantId, consent, expiresAt, userAddress);
    } else if (!result.applied) {
      // Revoked (or otherwise settled) while the bank was answering: the newer state stands.
      this.logger.warn(
        { consentId: consent.id, found: result.found },
        'consent authorised upstream, but no longer awaiting here: left as it is',
      );
    }
    return result;
  }

  /**
   * Whether a completed re-authorisation failed to renew the consent: its expiry did not move, or is
   * still inside the window in which the expiry scan asks for a re-authorisation. Asking the bank again
   * would only bring the user back to the same expiry (a loop): the merchant is told instead.
   */
  private notExtended(consent: StoredConsent, expiresAt: Date | null): boolean {
    if (consent.kind !== 'ACCOUNT' || consent.status !== ConsentStatus.AwaitingReauthorisation) return false;
    if (!expiresAt) return false;
    const window = this.config.consents.refreshDaysBeforeExpiry * DAY_MS;
    return (
      (consent.expiresAt !== null && expiresAt.getTime() <= consent.expiresAt.getTime()) ||
      // The scan's own test (expiry within the window from now), not from the bank's approval time.
      expiresAt.getTime() <= Date.now() + window
    );
  }

  /**
   * The accounts the bank lists under the new token, read before any transaction opens (no network call
   * inside one); null when the read failed.
   */
  private async fetchAccounts(
    consent: StoredConsent,
    token: string,
    subApplication: string | undefined,
  ): Promise<UpstreamAccount[] | null> {
    try {
      const { data } = await this.upstream.data.getAccounts({
        consent: token,
        institutionId: consent.institutionId,
        subApplication,
      });
      return data;
    } catch (error) {
      // The consent is authorised either way; the first background sync fetches the accounts again.
      this.logger.warn(
        {
          consentId: consent.id,
          upstreamTracingId: error instanceof UpstreamError ? error.tracingId : undefined,
        },
        'consent authorised: fetching accounts failed; left to the background sync',
      );
      return null;
    }
  }
}
