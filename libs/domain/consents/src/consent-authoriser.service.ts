import { Inject, Injectable } from '@nestjs/common';
import { AccountRepository } from '#libs/domain/accounts';
import { SyncRequests } from '#libs/domain/sync-runs';
import { LOGGER, type AppLogger } from '#libs/observability';
import { UPSTREAM_CLIENT, UpstreamError, type Consent, type UpstreamClient } from '#libs/upstream-client';
import { ConsentStateRepository } from './consent-state.repository.js';
import { ConsentStatus, type TransitionResult } from './consent-status.js';
import { ConsentTokenVault } from './consent-token.vault.js';
import type { StoredConsent } from './consent.repository.js';

/** The longest a financial-data consent lasts (spec part 8): the expiry when nothing else names one. */
export const MAX_DATA_CONSENT_DAYS = 90;
const DAY_MS = 86_400_000;

/**
 * When the authorised consent expires. The upstream's word first; version 2 of its interface omits
 * `expiresAt` on GET /consents (spec part 9), so then what we asked for when the terms were set; failing
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
 * embedded poll alike: the accounts, then the token sealed (bound to the row id) with the upstream's
 * terms, which also makes the accounts due for a sync; then their first sync is requested at once.
 */
@Injectable()
export class ConsentAuthoriser {
  constructor(
    @Inject(UPSTREAM_CLIENT) private readonly upstream: UpstreamClient,
    @Inject(LOGGER) private readonly logger: AppLogger,
    private readonly accounts: AccountRepository,
    private readonly state: ConsentStateRepository,
    private readonly vault: ConsentTokenVault,
    private readonly syncs: SyncRequests,
  ) {}

  async store(
    consent: StoredConsent,
    authorised: Consent,
    subApplication: string | undefined,
    requestId?: string,
  ): Promise<TransitionResult> {
    const token = authorised.consentToken;
    if (!token) throw new Error('The authorised consent carried no token');
    // A payment consent has no accounts to read or sync: its token is all there is to keep.
    if (consent.kind === 'ACCOUNT') await this.storeAccounts(consent, token, subApplication, requestId);
    const authorizedAt = authorised.authorizedAt ? new Date(authorised.authorizedAt) : new Date();
    const result = await this.state.markAuthorised(consent.merchantId, consent.id, {
      ...this.vault.seal(token, consent.id),
      authorizedAt,
      // A payment consent lasts as long as the bank says (a VRP consent's validTo was asked for at creation).
      expiresAt:
        consent.kind === 'ACCOUNT'
          ? expiryOf(authorised, consent, authorizedAt)
          : authorised.expiresAt
            ? new Date(authorised.expiresAt)
            : consent.expiresAt,
      featureScope: authorised.featureScope ?? consent.featureScope,
      institutionConsentId: authorised.institutionConsentId ?? null,
    });
    if (result.applied && consent.kind === 'ACCOUNT') {
      // The first sync of every account, at once (they are also due now, for the dispatcher to catch).
      const accounts = await this.accounts.idsOfConsent(consent.merchantId, consent.id);
      await this.syncs.requestInitial(
        accounts.map((accountId) => ({ merchantId: consent.merchantId, accountId })),
      );
    } else if (!result.applied) {
      // Revoked (or otherwise settled) while the bank was answering: the newer state stands.
      this.logger.warn(
        { consentId: consent.id, found: result.found },
        'consent authorised upstream, but no longer awaiting here: left as it is',
      );
    }
    return result;
  }

  private async storeAccounts(
    consent: StoredConsent,
    token: string,
    subApplication: string | undefined,
    requestId?: string,
  ): Promise<void> {
    // Accounts first: once the status says AUTHORIZED (what a poller waits for), they are readable.
    try {
      const { data: accounts } = await this.upstream.getAccounts({
        consent: token,
        institutionId: consent.institutionId,
        subApplication,
        requestId,
      });
      await this.accounts.upsertFromUpstream(
        {
          merchantId: consent.merchantId,
          userId: consent.userId,
          consentId: consent.id,
          institutionId: consent.institutionId,
        },
        accounts,
      );
    } catch (error) {
      // The consent is authorised either way; the first background sync fetches the accounts again.
      this.logger.warn(
        {
          consentId: consent.id,
          upstreamTracingId: error instanceof UpstreamError ? error.tracingId : undefined,
        },
        'consent authorised: fetching accounts failed; left to the background sync',
      );
    }
  }
}
